#!/usr/bin/env python3
"""A REAPI engine on this machine for the tests of remote execution (tests/remote_reapi.rs)
and `make bench-remote`: PostgreSQL (BuildGrid's scheduler keeps its state there), the
BuildGrid server (Execution, CAS, action cache, ByteStream, Bots) on 127.0.0.1:PORT with
instance `main`, and N workers (scripts/reapi_worker.py).

    python3 scripts/reapi_stack.py --dir DIR --port PORT [--workers N] [--executions FILE]
                                   [--stop-after N] [--kill-worker-after N] [--auth-secret S]
                                   [--tls-cert CERT --tls-key KEY]

--stop-after N (with --executions): the engine goes away once its workers took N actions,
as a server that is lost mid-run does. --kill-worker-after N: the worker that took the N-th
action is killed (SIGKILL) in the middle of it; the server gives the action to another.
--auth-secret S: every call needs `authorization: Bearer JWT`, a JWT signed with S (HS256).
--tls-cert CERT --tls-key KEY (PEM files): PORT serves TLS with that certificate; the
workers reach the server on a plain-text port of their own on 127.0.0.1.

Runs in the foreground: prints `ready` once the server answers, and stops everything it
started (and removes DIR's database) on SIGTERM, SIGINT or when its standard input closes.
Needs scripts/install-buildgrid.sh's environment (target/buildgrid, or $MERGELENS_BUILDGRID_VENV)
and PostgreSQL's server binaries (initdb, pg_ctl).
"""

import argparse
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def pg_bin(name):
    found = shutil.which(name)
    if found:
        return found
    base = "/usr/lib/postgresql"
    for version in sorted(os.listdir(base) if os.path.isdir(base) else [], reverse=True):
        path = os.path.join(base, version, "bin", name)
        if os.path.exists(path):
            return path
    sys.exit(f"reapi_stack: PostgreSQL's {name} not found")


def as_postgres(cmd):
    """PostgreSQL refuses to run as root: as root, run it as the `postgres` user."""
    if os.getuid() == 0:
        return ["runuser", "-u", "postgres", "--"] + cmd
    return cmd


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def channels(port, tls, worker_port):
    """The server's channels: PORT in plain text, or over TLS and a plain one for the workers."""
    if not tls:
        return f"""  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: true
"""
    cert, key = tls
    return f"""  - !channel
    address: "127.0.0.1:{port}"
    insecure-mode: false
    credentials:
      tls-server-key: {key}
      tls-server-cert: {cert}
  - !channel
    address: "127.0.0.1:{worker_port}"
    insecure-mode: true
"""


def config(port, pg_port, storage, secret, tls=None, worker_port=None):
    auth = ""
    if secret:
        auth = f"""authorization:
  method: jwt
  secret: {secret}
  algorithm: hs256
  allow-localhost-requests: false
"""
    return auth + f"""server:
{channels(port, tls, worker_port)}connections:
  - !sql-connection &sql
    connection-string: postgresql+psycopg2://postgres@127.0.0.1:{pg_port}/postgres
    pool-size: 5
    pool-timeout: 30
    max-overflow: 10
storages:
  - !disk-storage &main-storage
    path: {storage}
caches:
  - !lru-action-cache &main-action
    storage: *main-storage
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: true
schedulers:
  - !sql-scheduler &state-database
    sql: *sql
    storage: *main-storage
    action-cache: *main-action
    bot-session-keepalive-timeout: 10
instances:
  - name: main
    services:
      - !action-cache
        cache: *main-action
      - !execution
        scheduler: *state-database
      - !bots
        scheduler: *state-database
      - !cas
        storage: *main-storage
      - !bytestream
        storage: *main-storage
thread-pool-size: 20
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--executions")
    parser.add_argument("--stop-after", type=int, help="stop everything once the workers took this many actions")
    parser.add_argument("--auth-secret", help="clients and workers need a JWT (HS256) signed with it")
    parser.add_argument("--tls-cert", help="serve PORT over TLS with this certificate (PEM)")
    parser.add_argument("--tls-key", help="the certificate's private key (PEM)")
    parser.add_argument("--kill-worker-after", type=int,
                        help="kill the first worker (SIGKILL) once the workers took this many actions")
    args = parser.parse_args()
    tls = (os.path.abspath(args.tls_cert), os.path.abspath(args.tls_key)) if args.tls_cert else None
    args.worker_port = free_port() if tls else args.port
    venv = os.environ.get("MERGELENS_BUILDGRID_VENV") or os.path.join(HERE, "..", "target", "buildgrid")
    python = os.path.join(venv, "bin", "python")
    bgd = os.path.join(venv, "bin", "bgd")
    work = os.path.abspath(args.dir)
    os.makedirs(work, exist_ok=True)
    children = []
    pgdata = os.path.join(work, "pg")
    pg_port = free_port()
    stopping = threading.Event()

    def stop(*_):
        if stopping.is_set():
            return
        stopping.set()
        for child in reversed(children):
            if child.poll() is None:
                child.terminate()
        for child in reversed(children):
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
        if os.path.isdir(pgdata):
            subprocess.run(as_postgres([pg_bin("pg_ctl"), "-D", pgdata, "-m", "immediate", "stop"]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(pgdata, ignore_errors=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    logs = open(os.path.join(work, "stack.log"), "ab")
    try:
        os.makedirs(pgdata)
        if os.getuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(pgdata, pw.pw_uid, pw.pw_gid)
            os.chmod(work, 0o755)
        subprocess.run(as_postgres([pg_bin("initdb"), "-D", pgdata, "-A", "trust", "-U", "postgres"]),
                       check=True, stdout=logs, stderr=logs)
        subprocess.run(as_postgres([pg_bin("pg_ctl"), "-D", pgdata, "-w", "-l", os.path.join(pgdata, "log"),
                                    "-o", f"-p {pg_port} -k {pgdata} -c listen_addresses=127.0.0.1", "start"]),
                       check=True, stdout=logs, stderr=logs)
        url = f"postgresql+psycopg2://postgres@127.0.0.1:{pg_port}/postgres"
        subprocess.run([bgd, "migrate", "apply", url], check=True, stdout=logs, stderr=logs)
        conf = os.path.join(work, "buildgrid.yml")
        with open(conf, "w") as f:
            secret = None
            if args.auth_secret:
                secret = os.path.join(work, "auth.secret")
                with open(secret, "w") as s:
                    s.write(args.auth_secret)
            f.write(config(args.port, pg_port, os.path.join(work, "cas"), secret, tls, args.worker_port))
        children.append(subprocess.Popen([bgd, "server", "start", conf], stdout=logs, stderr=logs,
                                          stdin=subprocess.DEVNULL))
        start_workers(children, python, args, work, logs)
        wait_ready(args.port, children)
        wait_ready(args.worker_port, children)
    except Exception as e:  # noqa: BLE001 - any failure to start stops what did start
        print(f"reapi_stack: {e}; see {work}/stack.log", file=sys.stderr, flush=True)
        stop()
    print("ready", flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()
    while True:
        time.sleep(0.05)
        if args.stop_after and args.executions and taken(args.executions) >= args.stop_after:
            stop()
        if args.kill_worker_after and args.executions and taken(args.executions) >= args.kill_worker_after:
            args.kill_worker_after = None
            kill_taker(children, args.executions)
        if not stopping.is_set() and any(c.poll() is not None for c in children[:1]):
            print("reapi_stack: the server exited; see stack.log", file=sys.stderr, flush=True)
            stop()


def kill_taker(children, path):
    """Kills the worker that took the last action (its process id is on its line)."""
    with open(path) as f:
        pid = int(f.read().splitlines()[-1].split()[1])
    for child in children:
        if child.pid == pid:
            child.kill()


def taken(path):
    try:
        with open(path) as f:
            return sum(1 for _ in f)
    except OSError:
        return 0


def start_workers(children, python, args, work, logs):
    for i in range(args.workers):
        cmd = [python, os.path.join(HERE, "reapi_worker.py"), "--server", f"127.0.0.1:{args.worker_port}",
               "--instance", "main", "--work", os.path.join(work, f"worker-{i}")]
        if args.executions:
            cmd += ["--executions", args.executions]
        if args.auth_secret:
            cmd += ["--auth-secret", args.auth_secret]
        children.append(subprocess.Popen(cmd, stdout=logs, stderr=logs, stdin=subprocess.DEVNULL))


def wait_ready(port, children):
    deadline = time.time() + 60
    while time.time() < deadline:
        if children[0].poll() is not None:
            raise RuntimeError("the BuildGrid server exited at start")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the BuildGrid server did not answer within 60 s")


if __name__ == "__main__":
    main()
