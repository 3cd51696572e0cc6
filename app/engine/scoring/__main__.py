"""``python -m app.engine.scoring settle FILE|-``: score a result file and print the pulya and settlement."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from app.engine.scoring.resultfile import ResultFileError, parse_result_file
from app.engine.scoring.settlement import settle

USAGE = "usage: python -m app.engine.scoring settle FILE   (FILE '-' reads stdin)"


def settle_file(stream: TextIO) -> dict[str, Any]:
    try:
        data = json.load(stream)
    except json.JSONDecodeError as exc:
        raise ResultFileError(f"file: not JSON ({exc.msg} at line {exc.lineno})") from None
    sheet = parse_result_file(data).sheet()
    result = settle(sheet)
    return {
        "pools": list(sheet.pools),
        "mountains": list(sheet.mountains),
        "whists": [list(row) for row in sheet.whists],
        "finished": sheet.finished,
        "settlement": {
            "variant1": list(result.variant1),
            "variant2": list(result.variant2),
            "exact": [str(x) for x in result.exact],
        },
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "settle":
        print(USAGE, file=sys.stderr)
        return 2
    try:
        if argv[1] == "-":
            output = settle_file(sys.stdin)
        else:
            with open(argv[1], encoding="utf-8") as stream:
                output = settle_file(stream)
    except OSError as exc:
        print(f"error: file: {exc.strerror}: {argv[1]}", file=sys.stderr)
        return 2
    except ResultFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(output))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
