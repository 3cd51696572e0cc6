"""`ErrorCode` is the one list of refusals (issue 23 §3): the HTTP status table, the protocol's JSON Schema
and docs/protocol.md's table of error frames are made from it or checked against it, and the code that
sends a refusal names a member of it."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from pydantic import ValidationError

from app.engine.errors import EngineError
from app.protocol import ERROR_CODES, WEBSOCKET_CODES, CloseCode, ErrorCode, ErrorMessage
from app.protocol.__main__ import main as protocol_main
from app.server.errors import HTTP_STATUS, ApiError, TableElsewhere
from app.server.http.handlers import install_error_handlers, refusal
from app.server.tables.commands import SeatError
from app.table import TableRefused

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"

# The statuses REST callers got for a table's refusals before the table of statuses: the routes'
# `SEAT_ERROR_STATUS.get(code, 409)` with the award's and the sanction's 422 written over it.
STATUSES_BEFORE = {
    "game_started": 409, "already_seated": 409, "table_full": 409, "seat_taken": 409, "bad_seat": 422,
    "not_seated": 409, "not_playing": 409, "not_pending": 409, "award_ends_pulya": 409, "table_closed": 503,
    "table_busy": 503, "conflict": 409, "server_fault": 500, "server_error": 503,
    "invalid_award": 422, "invalid_sanction": 422,
    # No entry, so the default 409.
    "not_awarded": 409, "sanction_ends_pulya": 409, "not_started": 409, "game_over": 409,
}  # fmt: skip


def test_every_code_has_an_http_status_or_is_sent_on_a_websocket_only() -> None:
    assert set(ErrorCode) == set(HTTP_STATUS) | WEBSOCKET_CODES
    assert all(400 <= status < 600 for status in HTTP_STATUS.values())


def test_a_member_is_named_by_its_wire_value_and_says_what_it_means_in_one_line() -> None:
    for code in ErrorCode:
        assert code.name.lower() == code.value
        assert code.meaning and "\n" not in code.meaning


def test_the_schema_lists_every_websocket_code_with_its_meaning(capsys: pytest.CaptureFixture[str]) -> None:
    assert protocol_main(["schema"]) == 0
    listed = json.loads(capsys.readouterr().out)["error_codes"]
    assert listed == ERROR_CODES == {code.value: code.meaning for code in WEBSOCKET_CODES}
    # Sent before the schema knew them.
    assert {"table_busy", "moved", "private_room", "table_elsewhere", "conflict"} <= set(listed)


def test_an_error_frame_is_on_the_wire_as_before_and_names_a_code_of_the_enum() -> None:
    frame = ErrorMessage(code=ErrorCode.TABLE_BUSY, message="wait", seq=3)
    assert frame.model_dump_json() == '{"type":"error","code":"table_busy","message":"wait","seq":3}'
    assert ErrorMessage.model_json_schema()["properties"]["code"] == {"title": "Code", "type": "string"}
    with pytest.raises(ValidationError):
        ErrorMessage(code="no_such_code", message="x")


def test_the_docs_table_of_error_frames_lists_exactly_the_websocket_codes() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("### Error frames", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    documented = {code for row in rows for code in re.findall(r"`([a-z_]+)`", row.split("|")[1])}
    assert documented == {code.value for code in WEBSOCKET_CODES}


def test_every_engine_refusal_may_be_sent_in_an_error_frame() -> None:
    kinds: list[type[EngineError]] = [EngineError, *EngineError.__subclasses__()]
    assert len(kinds) > 1
    assert all(isinstance(kind.code, ErrorCode) and kind.code in WEBSOCKET_CODES for kind in kinds)


# ---- the code that refuses names codes the tables know --------------------------------------------------


def _member(node: ast.expr | None) -> ErrorCode | None:
    """``ErrorCode.NAME`` written in the source (a code passed on from an exception is not)."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ErrorCode":
        return ErrorCode[node.attr]
    return None


def sent_codes(source: str) -> tuple[set[ErrorCode], set[ErrorCode]]:
    """(codes put in a websocket error frame, codes raised as an `ApiError` with the table's status)."""
    frames: set[ErrorCode | None] = set()
    rest: set[ErrorCode | None] = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        keywords = {k.arg: k.value for k in node.keywords}
        args = [*node.args, None, None]
        if name == "ErrorMessage":
            frames.add(_member(keywords.get("code")))
        elif name in ("reject", "ProtocolError"):
            frames.add(_member(args[0]))
        elif name == "_refuse":  # (websocket, code, …)
            frames.add(_member(args[1]))
        elif name == "ApiError" and "status" not in keywords:
            rest.add(_member(args[0]))
        elif name == "refuse":  # middleware: (send, code, …)
            rest.add(_member(args[1]))
    return {c for c in frames if c is not None}, {c for c in rest if c is not None}


def test_every_code_the_server_sends_is_in_the_set_or_the_table_it_is_sent_through() -> None:
    frames: set[ErrorCode] = set()
    rest: set[ErrorCode] = set()
    for path in APP.rglob("*.py"):
        found = sent_codes(path.read_text(encoding="utf-8"))
        frames |= found[0]
        rest |= found[1]
    assert ErrorCode.TABLE_BUSY in frames and ErrorCode.NOT_FOUND in rest  # the scan sees them
    assert frames <= WEBSOCKET_CODES, frames - WEBSOCKET_CODES
    assert rest <= set(HTTP_STATUS), rest - set(HTTP_STATUS)


def test_the_scan_can_fail() -> None:
    frames, rest = sent_codes(
        "conn.send(ErrorMessage(code=ErrorCode.INVALID_AWARD, message='x'))\n"
        "raise ApiError(ErrorCode.MOVED, 'x')\n"
        "raise ApiError(ErrorCode.FORBIDDEN, 'x', status=409)\n"
        "conn.send(ErrorMessage(code=exc.code, message='x'))\n"
    )
    assert frames == {ErrorCode.INVALID_AWARD} and not frames <= WEBSOCKET_CODES
    assert rest == {ErrorCode.MOVED} and not rest <= set(HTTP_STATUS)


# ---- REST statuses ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("code", "status"), sorted(STATUSES_BEFORE.items()))
def test_a_table_refusal_keeps_the_status_it_had(code: str, status: int) -> None:
    member = ErrorCode[code.upper()]  # named as its value in capitals (the test above)
    assert refusal(SeatError(member, "m")).status == status
    assert refusal(TableRefused(member, "m")).status == status


def test_an_api_error_takes_its_status_from_the_table_unless_the_call_says_otherwise() -> None:
    assert ApiError(ErrorCode.UNKNOWN_DEAL, "m", "deal").status == 422
    assert ApiError(ErrorCode.FORBIDDEN, "m", status=409).status == 409
    elsewhere = TableElsewhere(7)
    assert (elsewhere.status, elsewhere.code, elsewhere.headers) == (
        503,
        "table_elsewhere",
        {"Retry-After": "1"},
    )
    with pytest.raises(KeyError):
        ApiError(ErrorCode.MOVED, "a websocket-only code has no status")


async def test_a_route_answers_a_table_refusal_with_the_status_of_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = FastAPI()
    install_error_handlers(app)

    @app.post("/award")
    async def award() -> None:
        raise refusal(SeatError(ErrorCode.INVALID_AWARD, "tricks: too many"))

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as client:
        answer = await client.post("/award")
        assert answer.status_code == 422
        assert answer.json() == {"error": "invalid_award", "message": "tricks: too many"}
        # The status is read from the table, not written at the route.
        monkeypatch.setitem(HTTP_STATUS, ErrorCode.INVALID_AWARD, 418)
        assert (await client.post("/award")).status_code == 418


# ---- close codes: one list, documented, never written as a bare number -----------------------------------


def test_the_docs_explain_every_close_code_of_the_enum() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("### Error frames", 1)[1].split("\n## ", 1)[0]
    documented = {int(code) for code in re.findall(r"\b(1008|1013|4\d{3})\b", section)}
    assert documented == {int(code) for code in CloseCode}


def test_the_server_closes_sockets_only_with_members_of_close_code() -> None:
    bare = re.compile(r"(close\(\s*(code=)?\d{4}\s*\)|\"code\":\s*\d{4})")
    offenders = [
        f"{path.relative_to(ROOT)}: {match.group(0)}"
        for path in sorted((ROOT / "app").rglob("*.py"))
        for match in bare.finditer(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
