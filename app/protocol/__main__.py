"""``python -m app.protocol schema``: print the JSON Schema of every message."""

from __future__ import annotations

import json
import sys

from app.protocol.messages import schema


def main(argv: list[str]) -> int:
    if argv[:1] != ["schema"]:
        print("usage: python -m app.protocol schema", file=sys.stderr)
        return 2
    json.dump(schema(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
