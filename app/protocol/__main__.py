"""``python -m app.protocol schema``: print the JSON Schema of every message.

``python -m app.protocol typescript``: print the TypeScript declarations made from that schema, the
browser's ``app/web/static/js/protocol.d.ts`` (docs/web.md: regenerate it after a protocol change).
"""

from __future__ import annotations

import json
import sys

from app.protocol.messages import schema
from app.protocol.typescript import typescript

USAGE = "usage: python -m app.protocol schema | typescript"


def main(argv: list[str]) -> int:
    if argv == ["schema"]:
        json.dump(schema(), sys.stdout, indent=2, sort_keys=True)
        sys.stdout.write("\n")
        return 0
    if argv == ["typescript"]:
        sys.stdout.write(typescript(schema()))
        return 0
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
