"""The result file of ``python -m app.engine.scoring settle`` (issue 3): a pulya's deals as JSON.

A deal names seats by index, or ``"dealer"`` for that deal's dealer; ``seats`` is given once per file.
Every error names the deal (``deals[i]``) and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.engine.bids import Bid
from app.engine.conventions import ConventionError, Conventions, conventions_from
from app.engine.result import DealKind, DealResult, PlayMode, WhistCall
from app.engine.scoring.records import ScoringError
from app.engine.scoring.sheet import ScoreSheet


class ResultFileError(ValueError):
    """A malformed or inconsistent result file; the message is one line naming the deal and field."""


@dataclass(frozen=True, slots=True)
class Timeout:
    """A ``{"type": "timeout", "seat": k}`` entry: the §5.8 penalty on seat k."""

    seat: int


Entry = DealResult | Timeout

_DEAL_KEYS = {
    "game": {"type", "dealer", "declarer", "contract", "calls", "play", "tricks", "partner", "timed_out"},
    "misere": {"type", "dealer", "declarer", "contract", "tricks", "partner", "timed_out"},
    "allpass": {"type", "dealer", "tricks", "talon_tricks", "timed_out"},
    "zastrel": {"type", "dealer", "declarer", "contract", "timed_out"},
    "void": {"type", "dealer", "timed_out"},
    "timeout": {"type", "seat"},
}


@dataclass(frozen=True, slots=True)
class ResultFile:
    seats: int
    conventions: Conventions
    entries: tuple[Entry, ...]

    def sheet(self) -> ScoreSheet:
        """Write every entry in order onto a new sheet."""
        sheet = ScoreSheet.new(self.seats, self.conventions)
        for index, entry in enumerate(self.entries):
            try:
                sheet = sheet.timeout(entry.seat) if isinstance(entry, Timeout) else sheet.apply(entry)
            except ScoringError as exc:
                raise ResultFileError(f"deals[{index}].{exc.field}: {exc.message}") from None
        return sheet


def parse_result_file(data: Any) -> ResultFile:
    if not isinstance(data, dict):
        raise ResultFileError("file: expected a JSON object")
    unknown = set(data) - {"seats", "pool_size", "preset", "overrides", "deals"}
    if unknown:
        raise ResultFileError(f"file.{sorted(unknown)[0]}: unknown field")
    seats = data.get("seats")
    if seats not in (3, 4) or isinstance(seats, bool):
        raise ResultFileError("file.seats: must be 3 or 4")
    overrides = data.get("overrides", {})
    if not isinstance(overrides, dict):
        raise ResultFileError("file.overrides: expected an object")
    if "pool_size" in data:
        if "pool_size" in overrides and overrides["pool_size"] != data["pool_size"]:
            raise ResultFileError("file.pool_size: differs from overrides.pool_size")
        overrides = {**overrides, "pool_size": data["pool_size"]}
    preset = data.get("preset", "fspr-leningrad")
    try:
        conventions = conventions_from(str(preset), overrides)
    except ConventionError as exc:
        raise ResultFileError(f"file.{exc}") from None
    deals = data.get("deals")
    if not isinstance(deals, list):
        raise ResultFileError("file.deals: expected a list")
    entries = []
    for index, raw in enumerate(deals):
        try:
            entries.append(_entry(raw, seats))
        except ScoringError as exc:
            raise ResultFileError(f"deals[{index}].{exc.field}: {exc.message}") from None
    return ResultFile(seats, conventions, tuple(entries))


def _entry(raw: Any, seats: int) -> Entry:
    if not isinstance(raw, dict):
        raise ScoringError("type", "expected an object")
    kind = raw.get("type")
    if kind not in _DEAL_KEYS:
        raise ScoringError("type", f"expected one of {', '.join(_DEAL_KEYS)}")
    unknown = set(raw) - _DEAL_KEYS[kind]
    if unknown:
        raise ScoringError(sorted(unknown)[0], f"not a field of a {kind} entry")
    if kind == "timeout":
        return Timeout(_seat(raw, "seat", seats, None))
    dealer = _seat(raw, "dealer", seats, None)
    timed_out = _timed_out(raw, seats, dealer)
    if kind == "void":
        return DealResult(seats, dealer, DealKind.VOID, timed_out=timed_out)
    if kind == "allpass":
        talon = raw.get("talon_tricks", 0)
        if not isinstance(talon, int) or isinstance(talon, bool):
            raise ScoringError("talon_tricks", "expected a whole number")
        tricks = _tricks(raw, seats, dealer)
        if tricks is None:
            raise ScoringError("tricks", "an all-pass deal is always played")
        return DealResult(
            seats, dealer, DealKind.ALLPASS, tricks=tricks, talon_tricks=talon, timed_out=timed_out
        )
    declarer = _seat(raw, "declarer", seats, dealer)
    contract = _contract(raw)
    if kind == "zastrel":
        return DealResult(seats, dealer, DealKind.ZASTREL, declarer, contract, timed_out=timed_out)
    partner = None if raw.get("partner") is None else _seat(raw, "partner", seats, dealer)
    misere = kind == "misere" or contract.is_misere
    if misere and not contract.is_misere:
        raise ScoringError("contract", "a misère entry needs a misère contract")
    play = raw.get("play")
    if play is not None and play not in ("open", "closed"):
        raise ScoringError("play", "expected open or closed")
    return DealResult(
        seats,
        dealer,
        DealKind.MISERE if misere else DealKind.GAME,
        declarer,
        contract,
        calls=_calls(raw, seats, dealer),
        play=None if play is None else PlayMode(play),
        tricks=_tricks(raw, seats, dealer),
        misere_partner=partner,
        timed_out=timed_out,
    )


def _seat_name(value: Any, field: str, seats: int, dealer: int | None) -> int:
    if value == "dealer" and dealer is not None:
        return dealer
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < seats:
        named = ' or "dealer"' if dealer is not None else ""
        raise ScoringError(field, f"expected a seat 0..{seats - 1}{named}, got {value!r}")
    return value


def _seat(raw: dict[str, Any], field: str, seats: int, dealer: int | None) -> int:
    if field not in raw:
        raise ScoringError(field, "missing")
    return _seat_name(raw[field], field, seats, dealer)


def _timed_out(raw: dict[str, Any], seats: int, dealer: int) -> tuple[int, ...]:
    """One seat, or a list of every seat that ran out in the deal (§8.5)."""
    value = raw.get("timed_out")
    if value is None:
        return ()
    values = value if isinstance(value, list) else [value]
    return tuple(sorted({_seat_name(v, "timed_out", seats, dealer) for v in values}))


def _contract(raw: dict[str, Any]) -> Bid:
    if "contract" not in raw:
        raise ScoringError("contract", "missing")
    try:
        return Bid.parse(raw["contract"])
    except ValueError as exc:
        raise ScoringError("contract", str(exc)) from None


def _calls(raw: dict[str, Any], seats: int, dealer: int) -> tuple[tuple[int, WhistCall], ...]:
    calls = raw.get("calls", [])
    if not isinstance(calls, list):
        raise ScoringError("calls", "expected a list of [seat, call] pairs")
    out = []
    for pair in calls:
        if not isinstance(pair, list) or len(pair) != 2:
            raise ScoringError("calls", f"expected [seat, call], got {pair!r}")
        seat = _seat_name(pair[0], "calls", seats, dealer)
        try:
            out.append((seat, WhistCall(pair[1])))
        except ValueError:
            raise ScoringError("calls", f"expected pass, whist or half-whist, got {pair[1]!r}") from None
    return tuple(out)


def _tricks(raw: dict[str, Any], seats: int, dealer: int) -> dict[int, int] | None:
    tricks = raw.get("tricks")
    if tricks is None:
        return None
    if not isinstance(tricks, dict):
        raise ScoringError("tricks", "expected an object of seat: tricks")
    out: dict[int, int] = {}
    for name, count in tricks.items():
        seat = _seat_name(name, "tricks", seats, dealer)
        if not isinstance(count, int) or isinstance(count, bool) or not 0 <= count <= 10:
            raise ScoringError("tricks", f"seat {seat}: expected 0..10, got {count!r}")
        if seat in out:
            raise ScoringError("tricks", f"seat {seat} given twice")
        out[seat] = count
    return out
