#!/usr/bin/env python3
"""A small REAPI worker for the tests of mergelens's remote execution (tests/remote_reapi.rs).

BuildGrid ships no worker on PyPI, so this one speaks its Remote Workers API (the Bots
service of google.devtools.remoteworkers.v1test2) with the protos BuildGrid's package ships:
it opens a bot session, takes one lease at a time, materialises the action's input root from
the CAS, runs the command with the action's timeout, uploads stdout, stderr and the output
files, and hands the ActionResult back in the lease (the server writes the action cache).

Files are fetched once per worker: each blob lands in a cache directory under its digest
and is hard-linked into every input root that holds it (the CBMC installation is the same
tree in every action). Runs in the virtual environment scripts/install-buildgrid.sh makes:

    python reapi_worker.py --server 127.0.0.1:PORT --instance main --work DIR [--executions FILE]

--executions FILE: each run appends one line (the action's digest) to FILE, so a test can
count what was executed rather than answered from the cache (one line each: the action's
digest, the worker's process id, its input root's digest, its timeout and its command line), and FILE.times one line per
finished action (its digest, its seconds, and its start and end on the monotonic clock).
"""

import argparse
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid

import grpc

from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as re
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2_grpc as re_grpc
from buildgrid._protos.google.bytestream import bytestream_pb2, bytestream_pb2_grpc
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2, bots_pb2_grpc
from buildgrid._protos.google.rpc import code_pb2

CHUNK = 1 << 20
BATCH = 2 << 20


class Cas:
    """Reads and writes blobs of one instance, with a local cache of what was read."""

    def __init__(self, channel, instance, cache_dir):
        self.cas = re_grpc.ContentAddressableStorageStub(channel)
        self.bytestream = bytestream_pb2_grpc.ByteStreamStub(channel)
        self.instance = instance
        self.cache_dir = cache_dir
        os.makedirs(cache_dir, exist_ok=True)

    def read(self, digest):
        if digest.size_bytes == 0:
            return b""
        if digest.size_bytes <= BATCH:
            reply = self.cas.BatchReadBlobs(
                re.BatchReadBlobsRequest(instance_name=self.instance, digests=[digest])
            )
            for r in reply.responses:
                if r.status.code == code_pb2.OK:
                    return r.data
        name = f"{self.instance}/blobs/{digest.hash}/{digest.size_bytes}"
        parts = [p.data for p in self.bytestream.Read(bytestream_pb2.ReadRequest(resource_name=name))]
        return b"".join(parts)

    def cached_file(self, digest, executable):
        path = os.path.join(self.cache_dir, digest.hash + (".x" if executable else ""))
        if not os.path.exists(path):
            tmp = f"{path}.{uuid.uuid4().hex}"
            with open(tmp, "wb") as f:
                f.write(self.read(digest))
            os.chmod(tmp, 0o555 if executable else 0o444)
            os.replace(tmp, path)
        return path

    def write(self, data):
        digest = re.Digest(hash=hashlib.sha256(data).hexdigest(), size_bytes=len(data))
        if len(data) <= BATCH:
            request = re.BatchUpdateBlobsRequest(instance_name=self.instance)
            request.requests.add(digest=digest, data=data)
            self.cas.BatchUpdateBlobs(request)
            return digest
        name = f"{self.instance}/uploads/{uuid.uuid4()}/blobs/{digest.hash}/{digest.size_bytes}"

        def chunks():
            for at in range(0, len(data), CHUNK):
                end = at + CHUNK
                yield bytestream_pb2.WriteRequest(
                    resource_name=name, write_offset=at, data=data[at:end], finish_write=end >= len(data)
                )

        self.bytestream.Write(chunks())
        return digest


def materialise(cas, directories, digest, path):
    """Writes the tree of `digest` at `path`: files hard-linked from the cache."""
    key = digest.hash
    if key not in directories:
        d = re.Directory()
        d.ParseFromString(cas.read(digest))
        directories[key] = d
    d = directories[key]
    os.makedirs(path, exist_ok=True)
    for f in d.files:
        os.link(cas.cached_file(f.digest, f.is_executable), os.path.join(path, f.name))
    for s in d.symlinks:
        os.symlink(s.target, os.path.join(path, s.name))
    for sub in d.directories:
        materialise(cas, directories, sub.digest, os.path.join(path, sub.name))


def execute(cas, directories, action, work, log):
    command = re.Command()
    command.ParseFromString(cas.read(action.command_digest))
    root = os.path.join(work, "run-" + uuid.uuid4().hex)
    try:
        materialise(cas, directories, action.input_root_digest, root)
        cwd = os.path.join(root, command.working_directory)
        for out in list(command.output_files) + list(command.output_paths):
            os.makedirs(os.path.dirname(os.path.join(cwd, out)), exist_ok=True)
        env = {v.name: v.value for v in command.environment_variables}
        timeout = action.timeout.seconds + action.timeout.nanos / 1e9 or None
        result = re.ActionResult()
        started = time.time()
        try:
            ran = subprocess.run(
                list(command.arguments), cwd=cwd, env=env, capture_output=True, timeout=timeout
            )
        except subprocess.TimeoutExpired as e:
            raise TimeoutError(str(e)) from e
        except OSError as e:
            ran = subprocess.CompletedProcess(command.arguments, 127, b"", str(e).encode())
        result.exit_code = ran.returncode
        result.stdout_digest.CopyFrom(cas.write(ran.stdout))
        result.stderr_digest.CopyFrom(cas.write(ran.stderr))
        for out in list(command.output_files) + list(command.output_paths):
            path = os.path.join(cwd, out)
            if os.path.isfile(path):
                with open(path, "rb") as f:
                    result.output_files.add(
                        path=out, digest=cas.write(f.read()), is_executable=os.access(path, os.X_OK)
                    )
        result.execution_metadata.worker = "mergelens-test-worker"
        result.execution_metadata.worker_start_timestamp.FromSeconds(int(started))
        result.execution_metadata.worker_completed_timestamp.FromSeconds(int(time.time()))
        return result
    finally:
        shutil.rmtree(root, ignore_errors=True)


class Bearer(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,
             grpc.StreamUnaryClientInterceptor):
    """Adds `authorization: Bearer TOKEN` to every call."""

    def __init__(self, token):
        self.token = token

    def _details(self, details):
        metadata = list(details.metadata or []) + [("authorization", f"Bearer {self.token}")]
        return details._replace(metadata=metadata)

    def intercept_unary_unary(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation, details, request):
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation, details, request_iterator):
        return continuation(self._details(details), request_iterator)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--instance", default="")
    parser.add_argument("--work", required=True)
    parser.add_argument("--executions")
    parser.add_argument("--auth-secret", help="sign a token with it for every call (HS256)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    channel = grpc.insecure_channel(args.server)
    if args.auth_secret:
        import jwt

        token = jwt.encode({"sub": "mergelens-test-worker", "exp": int(time.time()) + 86400},
                           args.auth_secret, algorithm="HS256")
        channel = grpc.intercept_channel(channel, Bearer(token))
    bots = bots_pb2_grpc.BotsStub(channel)
    cas = Cas(channel, args.instance, os.path.join(args.work, "cache"))
    directories = {}
    session = bots_pb2.BotSession(bot_id=f"mergelens-test-{os.getpid()}", status=bots_pb2.BotStatus.OK)
    while True:
        try:
            session = bots.CreateBotSession(
                bots_pb2.CreateBotSessionRequest(parent=args.instance, bot_session=session)
            )
            break
        except grpc.RpcError:
            time.sleep(0.2)
    while True:
        for lease in session.leases:
            if lease.state == bots_pb2.LeaseState.PENDING:
                lease.state = bots_pb2.LeaseState.ACTIVE
            elif lease.state == bots_pb2.LeaseState.ACTIVE:
                run_lease(cas, directories, lease, args)
        session = bots.UpdateBotSession(
            bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session)
        )


def run_lease(cas, directories, lease, args):
    action = re.Action()
    if lease.payload.Is(re.Action.DESCRIPTOR):
        lease.payload.Unpack(action)
        digest = hashlib.sha256(action.SerializeToString()).hexdigest()
    else:
        d = re.Digest()
        lease.payload.Unpack(d)
        action.ParseFromString(cas.read(d))
        digest = d.hash
    if args.executions:
        command = re.Command()
        command.ParseFromString(cas.read(action.command_digest))
        with open(args.executions, "a") as f:
            f.write(f"{digest} {os.getpid()} {action.input_root_digest.hash} {action.timeout.seconds} "
                    f"{' '.join(command.arguments)}\n")
    started = time.monotonic()
    try:
        result = execute(cas, directories, action, args.work, sys.stderr)
        lease.result.Pack(result)
        lease.status.code = code_pb2.OK
    except TimeoutError as e:
        lease.status.code = code_pb2.DEADLINE_EXCEEDED
        lease.status.message = str(e)
    if args.executions:
        with open(args.executions + ".times", "a") as f:
            # Seconds, then the start and the end on the machine's monotonic clock, which
            # every worker shares: a test sees which actions ran at the same time.
            ended = time.monotonic()
            f.write(f"{digest} {ended - started:.3f} {started:.3f} {ended:.3f}\n")
    lease.state = bots_pb2.LeaseState.COMPLETED


if __name__ == "__main__":
    main()
