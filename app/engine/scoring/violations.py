"""Judges' sanctions written into the pulya (RULES.md §11).

`apply_sanction` applies an entry of the catalogue (`app.engine.scoring.catalogue`) to a seat and writes its
effect as a "sanction" history line: the audit trail names the entry, the role, the judge and the reason.
Entries marked ``online=False`` are refused unless the judge says otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from app.engine.result import DealKind, DealResult
from app.engine.scoring.calls import active_seats, whist_outcome
from app.engine.scoring.catalogue import BY_KEY, CATALOGUE, Effect, Penalty, Phase, Role, Violation
from app.engine.scoring.checks import is_misere
from app.engine.scoring.records import ScoringError, Write, mountain, net_writes, whists
from app.engine.scoring.sheet import HistoryLine, ScoreSheet, deal_writes

__all__ = [
    "BY_KEY",
    "CATALOGUE",
    "Effect",
    "Penalty",
    "Phase",
    "Role",
    "SanctionError",
    "Violation",
    "apply_sanction",
    "revoke_sanction",
]


class SanctionError(ScoringError):
    """A sanction that cannot be written; ``field`` names the argument at fault."""


def apply_sanction(
    sheet: ScoreSheet,
    violation: str,
    role: Role,
    seat: int,
    *,
    deal: int | None = None,
    damage: Mapping[int, int] | None = None,
    recipient: int | None = None,
    judge: str = "",
    note: str = "",
    allow_offline: bool = False,
) -> ScoreSheet:
    """Write a judge's sanction: catalogue entry ``violation`` for ``seat`` in ``role``.

    ``deal`` is the index in ``sheet.history`` of the deal concerned (needed by trick penalties);
    ``damage`` maps each damaged seat to the whists it writes on the offender; ``recipient`` is the seat a
    lost trick goes to (default: the declarer from a defender, the first whister from the declarer).
    """
    entry = BY_KEY.get(violation)
    if entry is None:
        raise SanctionError("violation", f"unknown catalogue entry {violation!r}")
    penalty = entry.penalties.get(role)
    if penalty is None:
        raise SanctionError("role", f"{violation} has no penalty for a {role.value}")
    if not entry.online and not allow_offline:
        raise SanctionError("violation", f"{violation} cannot happen in online play")
    if not penalty.expressible:
        raise SanctionError("violation", f"{violation}: '{penalty.text}' writes nothing in the pulya")
    if not 0 <= seat < sheet.seats:
        raise SanctionError("seat", f"no seat {seat}")
    writes = _effect_writes(sheet, penalty, seat, deal=deal, damage=damage, recipient=recipient)
    by = f" by {judge}" if judge else ""
    why = f"; {note}" if note else ""
    reason = f"sanction {violation}"
    summary = f"sanction{by}: {violation} ({role.value}) on seat {seat}: {penalty.text}{why}"
    labelled = tuple(replace(w, reason=f"{reason}: {w.reason}") for w in writes if w.amount)
    return sheet.write(HistoryLine("sanction", summary, labelled))


def revoke_sanction(sheet: ScoreSheet, line: HistoryLine, *, judge: str, reason: str) -> ScoreSheet:
    """A sanction revoked (§11): a new "sanction" line writes the negation of ``line``'s writes, so the
    columns are as if it had not been written and the record keeps both."""
    if line.kind != "sanction":
        raise SanctionError("sanction", "only a sanction's sheet line can be revoked")
    line = _as_the_sheet_holds_it(sheet, line)
    undo = tuple(replace(w, amount=-w.amount, reason=f"revoked: {w.reason}") for w in line.writes)
    return sheet.write(HistoryLine("sanction", f"revoked by {judge}: {line.summary}; {reason}", undo))


def _as_the_sheet_holds_it(sheet: ScoreSheet, line: HistoryLine) -> HistoryLine:
    """``line`` (as stored when written) in the seat numbers the sheet uses now: a fourth who joined
    (RULES §7.7) renumbered the writes of every line before his, so a sanction written at three is undone
    on the seats its players hold at four. Its summary names it; a summary found both before and after the
    join cannot say which numbering it was written in, and is refused rather than undone on a guess."""
    history = sheet.history
    joins = [i for i, h in enumerate(history) if h.kind == "join"]
    if not joins:
        return line
    same = [i for i, h in enumerate(history) if h.kind == "sanction" and h.summary == line.summary]
    before = [i for i in same if i < joins[-1]]
    if not before:
        return line
    if len(before) < len(same):
        raise SanctionError(
            "sanction", "a sanction like it was written after a fourth joined: write a new one instead"
        )
    return history[before[-1]]


def _effect_writes(
    sheet: ScoreSheet,
    penalty: Penalty,
    seat: int,
    *,
    deal: int | None,
    damage: Mapping[int, int] | None,
    recipient: int | None,
) -> list[Write]:
    if penalty.effect is Effect.MOUNTAIN_POINTS:
        return [mountain(seat, penalty.amount, f"{penalty.amount} points to mountain")]
    if penalty.effect is Effect.DAMAGE_WHISTS:
        if not damage:
            raise SanctionError("damage", "name the whists each damaged seat writes on the offender")
        if any(s == seat or not 0 <= s < sheet.seats or amount < 0 for s, amount in damage.items()):
            raise SanctionError("damage", "damaged seats are the other seats, with whole non-negative whists")
        return [whists(s, seat, amount, "whists of the damage") for s, amount in sorted(damage.items())]
    line = _deal_line(sheet, deal)
    result = line.result
    assert result is not None
    if penalty.effect is Effect.DOWN_TRICKS:
        return _down_writes(sheet, result, seat, penalty.amount)
    moved = _moved_tricks(result, penalty, seat, recipient)
    conventions, step = sheet.conventions, line.allpass_step or 1
    before = net_writes(deal_writes(result, conventions, step))
    after = net_writes(deal_writes(moved, conventions, step))
    what = f"re-scored deal {deal} with the penalty tricks"
    return [
        Write(column, s, after.get((column, s, on), 0) - before.get((column, s, on), 0), what, on)
        for (column, s, on) in sorted(
            {*before, *after}, key=lambda k: (k[0].value, k[1], -1 if k[2] is None else k[2])
        )
    ]


def _deal_line(sheet: ScoreSheet, deal: int | None) -> HistoryLine:
    if deal is None or not 0 <= deal < len(sheet.history):
        raise SanctionError("deal", "name the deal (its index in the sheet's history)")
    line = sheet.history[deal]
    if line.result is None or line.result.kind is DealKind.VOID:
        raise SanctionError("deal", f"history line {deal} is not a played deal")
    return line


def _down_writes(sheet: ScoreSheet, result: DealResult, seat: int, down: int) -> list[Write]:
    """ "Without N" on the deal's contract: the declarer's remiz with consolation, a defender's shortfall."""
    if result.contract is None or result.declarer is None or result.kind is DealKind.ZASTREL:
        raise SanctionError("deal", "'without N' needs a deal with a contract")
    price = result.contract.price
    if seat == result.declarer:
        writes = [mountain(seat, 2 * price * down, f"without {down} on {result.contract.text}")]
        if not is_misere(result):  # a misère has no consolation (§5.7)
            writes += [
                whists(s, seat, 2 * price * down, "consolation") for s in range(sheet.seats) if s != seat
            ]
        return writes
    if seat not in active_seats(result.seats, result.dealer):
        raise SanctionError("seat", "the seat held no cards in that deal")
    # A defender's "without N" is a whist shortfall: P per trick, half-responsible (§5.4) [ours].
    return [mountain(seat, price * down, f"without {down} on the whist of {result.contract.text}")]


def _moved_tricks(result: DealResult, penalty: Penalty, seat: int, recipient: int | None) -> DealResult:
    if result.tricks is None:
        raise SanctionError("deal", "that deal was not played: no tricks to move")
    if seat not in result.tricks:
        raise SanctionError("seat", "the seat took no part in that deal's play")
    n = penalty.amount
    tricks = dict(result.tricks)
    if result.kind is DealKind.ALLPASS or is_misere(result):
        if is_misere(result) and seat != result.declarer:
            raise SanctionError("seat", "on a misère only the declarer's added trick counts")
        tricks[seat] += n  # all-pass and misère: the penalty tricks are added (seed 001, seed 002)
        return replace(result, tricks=tricks)
    if penalty.effect is Effect.EXTRA_TRICKS:
        raise SanctionError("deal", "extra tricks are an all-pass penalty")
    if recipient is None:
        whisters = whist_outcome(result).whisters
        defenders = [s for s in result.tricks if s != result.declarer]
        assert result.declarer is not None
        recipient = result.declarer if seat != result.declarer else (whisters or defenders)[0]
    if recipient not in tricks or (seat == result.declarer) == (recipient == result.declarer):
        raise SanctionError("recipient", "a lost trick goes to the other side")
    if tricks[seat] < n:
        raise SanctionError("seat", f"seat {seat} has fewer than {n} tricks to lose")
    tricks[seat] -= n
    tricks[recipient] += n
    return replace(result, tricks=tricks)
