#!/usr/bin/env bash
# Makes the REAPI server of tests/remote_reapi.rs available: a Python virtual environment
# under target/buildgrid with BuildGrid (the `buildgrid` package on PyPI), whose server
# provides Execution, the CAS, the action cache, ByteStream and the Bots service.
# scripts/reapi_worker.py, the tests' worker, runs in the same environment. PostgreSQL's
# server, which BuildGrid's scheduler needs, is installed from the distribution if missing.
#
# 0.4.4 is the newest release that runs on Python 3.11 (Debian 12's python3).
#
# Idempotent and offline-tolerant: nothing happens when PostgreSQL is there and the
# environment already imports BuildGrid's server and protos.
set -euo pipefail

say() { printf 'install-buildgrid: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

venv="${MERGELENS_BUILDGRID_VENV:-target/buildgrid}"
check='import buildgrid.server.app.cli, psycopg2, buildgrid._protos.google.devtools.remoteworkers.v1test2.bots_pb2_grpc'

# BuildGrid's scheduler keeps its state in PostgreSQL: scripts/reapi_stack.py runs a server
# of its own (initdb, pg_ctl) in the engine's directory.
if ! command -v pg_ctl >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 || die "PostgreSQL's server (pg_ctl, initdb) is missing; install it"
    if [ "$(id -u)" -eq 0 ]; then as_root() { "$@"; }; else as_root() { sudo "$@"; }; fi
    say "installing PostgreSQL's server"
    as_root apt-get install -y -q postgresql >/dev/null || die "cannot install postgresql"
fi

if [ -x "$venv/bin/bgd" ] && "$venv/bin/python" -c "$check" 2>/dev/null; then
    exit 0
fi

if ! python3 -m venv "$venv" 2>/dev/null; then
    command -v apt-get >/dev/null 2>&1 || die "python3 -m venv failed and apt-get is missing; install python3-venv"
    if [ "$(id -u)" -eq 0 ]; then as_root() { "$@"; }; else as_root() { sudo "$@"; }; fi
    as_root apt-get install -y -q python3-venv >/dev/null || die "cannot install python3-venv"
    python3 -m venv "$venv" || die "python3 -m venv $venv failed"
fi
say "installing BuildGrid into $venv"
# Its scheduler keeps its state in PostgreSQL (the machine's own server; see scripts/reapi_stack.py).
"$venv/bin/pip" install -q "buildgrid==0.4.4" "psycopg2-binary>=2.9,<3" || die "pip install buildgrid failed"
"$venv/bin/python" -c "$check" || die "BuildGrid does not import from $venv"
