"""`ScoreSheet`: the pulya record, пулька (RULES.md §5–§7.1).

An immutable value: ``sheet.apply(result)`` returns the next sheet. It keeps each player's pool, mountain
and the whists written on each other player, the running all-pass series, and one history line per entry
saying what was written where and why.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.engine.conventions import Conventions
from app.engine.result import DealKind, DealResult, next_allpass_series
from app.engine.scoring.allpass import allpass_writes
from app.engine.scoring.checks import check_result, is_misere
from app.engine.scoring.describe import describe
from app.engine.scoring.games import game_writes, misere_writes, zastrel_writes
from app.engine.scoring.records import Column, ScoringError, Write, whists

ROUND_END = "round_end"  # the kind of the history line that marks a tournament round's end (§9.3)


def deal_writes(result: DealResult, conventions: Conventions, allpass_step: int = 1) -> list[Write]:
    """What one deal writes (§5–§6); ``allpass_step`` is the deal's step in an all-pass series."""
    if result.kind is DealKind.VOID:
        return []
    if result.kind is DealKind.ALLPASS:
        return allpass_writes(result, conventions, allpass_step)
    if result.kind is DealKind.ZASTREL:
        return zastrel_writes(result)
    if is_misere(result):
        return misere_writes(result)
    return game_writes(result, conventions)


# History lines that record no deal: a timeout penalty, a sanction, a seat's change of holder, a fourth
# player joining (§7.7), a tournament round's end (§9.3).
NOT_DEALS = ("timeout", "sanction", "substitute", "join", ROUND_END)


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One entry of the sheet: a deal, a timeout penalty or a judge's sanction."""

    kind: str  # a DealKind value, or one of NOT_DEALS
    summary: str
    writes: tuple[Write, ...]
    result: DealResult | None = None  # the deal, kept so a judge can re-score it (§11)
    allpass_step: int | None = None  # all-pass deals: the step of the series (§6.5)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "summary": self.summary,
            "writes": [w.to_json() for w in self.writes],
        }
        if self.result is not None:
            out["result"] = self.result.to_json()
        if self.allpass_step is not None:
            out["allpass_step"] = self.allpass_step
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> HistoryLine:
        result = data.get("result")
        step = data.get("allpass_step")
        return HistoryLine(
            kind=str(data["kind"]),
            summary=str(data["summary"]),
            writes=tuple(Write.from_json(w) for w in data["writes"]),
            result=None if result is None else DealResult.from_json(result),
            allpass_step=None if step is None else int(step),
        )


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    seats: int
    conventions: Conventions
    pools: tuple[int, ...]
    mountains: tuple[int, ...]
    whists: tuple[tuple[int, ...], ...]  # whists[i][j]: whists seat i wrote on seat j
    allpass_series: int = 0  # all-pass deals in the running series
    history: tuple[HistoryLine, ...] = ()
    # §9.3, a tournament table: the deal after which the round ends it, and that deal's dealer («галочка»)
    last_deal: int | None = None
    last_dealer: int | None = None

    @staticmethod
    def new(seats: int, conventions: Conventions | None = None) -> ScoreSheet:
        if seats not in (3, 4):
            raise ScoringError("seats", "preferans is played by 3 or 4")
        zero = (0,) * seats
        return ScoreSheet(seats, conventions or Conventions(), zero, zero, (zero,) * seats)

    @property
    def finished(self) -> bool:
        """The pools' sum reached n·S (§7.1); Leningradka lets a single pool pass S. At a tournament table
        the pools never end the pulya: the round does (§7.1, §9.3)."""
        if self.conventions.tournament:
            return False
        return sum(self.pools) >= self.seats * self.conventions.pool_size

    @property
    def deals(self) -> int:
        return sum(line.kind not in NOT_DEALS for line in self.history)

    def mark_round_end(self, last_deal: int, last_dealer: int | None) -> ScoreSheet:
        """§9.3: the round's end announced (or a straggler's end): the table ends after deal ``last_deal``
        and its dealer is marked; a history line without writes records it on the sheet."""
        if self.last_deal is not None:
            raise ScoringError("round_end", f"the table already ends after deal {self.last_deal}")
        dealer = "" if last_dealer is None else f", dealt by seat {last_dealer}"
        line = HistoryLine(ROUND_END, f"round end: the last deal is deal {last_deal}{dealer}", ())
        return replace(self.write(line), last_deal=last_deal, last_dealer=last_dealer)

    def apply(self, result: DealResult) -> ScoreSheet:
        """Write one deal; raises `ScoringError` for an inconsistent result or a finished pulya."""
        if self.finished:
            raise ScoringError("deal", "the pulya is over: no deal is played after its end (§7.1)")
        check_result(result, self.seats, self.conventions)
        series = next_allpass_series(self.allpass_series, result)
        step = series if result.kind is DealKind.ALLPASS else None
        written = tuple(w for w in deal_writes(result, self.conventions, step or 1) if w.amount)
        line = HistoryLine(result.kind.value, describe(result), written, result, step)
        return replace(self.write(line), allpass_series=series)

    def award(self, deal_number: int, result: DealResult) -> ScoreSheet:
        """Write an administrator's award for interrupted deal ``deal_number`` (§8.2, §8.4).

        It may come after later deals and after the end of the pulya, so it is written as its own history
        line ("deal N awarded") and leaves the running all-pass series as it stands (§8.6).
        """
        check_result(result, self.seats, self.conventions)
        if result.kind is DealKind.ALLPASS:
            raise ScoringError("type", "an interrupted deal is awarded as a game, a misère or void")
        written = tuple(w for w in deal_writes(result, self.conventions) if w.amount)
        line = HistoryLine(
            result.kind.value, f"deal {deal_number} awarded: {describe(result)}", written, result
        )
        return self.write(line)

    def awarded_result(self, deal_number: int) -> DealResult | None:
        """The result in force for interrupted deal ``deal_number``: its latest award or revision."""
        for line in reversed(self.history):
            if line.summary.startswith(
                (f"deal {deal_number} awarded:", f"deal {deal_number} award revised:")
            ):
                return line.result
        return None

    def revise_award(self, deal_number: int, result: DealResult) -> ScoreSheet:
        """A judge's later award for a deal already awarded (issue 11 §2): one new history line writes the
        difference, so the columns follow the latest award and the earlier lines stay as they were."""
        check_result(result, self.seats, self.conventions)
        if result.kind is DealKind.ALLPASS:
            raise ScoringError("type", "an interrupted deal is awarded as a game, a misère or void")
        previous = self.awarded_result(deal_number)
        if previous is None:
            raise ScoringError("deal", f"deal {deal_number} has no award to revise")
        undone = [
            replace(w, amount=-w.amount, reason=f"revised: {w.reason}")
            for w in deal_writes(previous, self.conventions)
        ]
        written = tuple(w for w in (*undone, *deal_writes(result, self.conventions)) if w.amount)
        line = HistoryLine(
            result.kind.value, f"deal {deal_number} award revised: {describe(result)}", written, result
        )
        return self.write(line)

    def timeout(self, seat: int) -> ScoreSheet:
        """The timeout penalty (§5.8): every other player writes 50 whists on ``seat``."""
        if not 0 <= seat < self.seats:
            raise ScoringError("seat", f"no seat {seat}")
        each = self.conventions.timeout_penalty(self.seats) // (self.seats - 1)
        writes = tuple(whists(s, seat, each, "timeout penalty") for s in range(self.seats) if s != seat)
        return self.write(HistoryLine("timeout", f"seat {seat} ran out of time", writes))

    def write(self, line: HistoryLine) -> ScoreSheet:
        """Append a history line and add its writes to the columns."""
        pools, mountains = list(self.pools), list(self.mountains)
        table = [list(row) for row in self.whists]
        for w in line.writes:
            if not 0 <= w.seat < self.seats or not (w.target is None or 0 <= w.target < self.seats):
                raise ScoringError("writes", f"no such seat in {w}")
            if w.column is Column.POOL:
                pools[w.seat] += w.amount
            elif w.column is Column.MOUNTAIN:
                mountains[w.seat] += w.amount
            else:
                assert w.target is not None
                if w.target == w.seat:
                    raise ScoringError("writes", "a player writes no whists on himself")
                table[w.seat][w.target] += w.amount
        return replace(
            self,
            pools=tuple(pools),
            mountains=tuple(mountains),
            whists=tuple(tuple(row) for row in table),
            history=(*self.history, line),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "seats": self.seats,
            "conventions": self.conventions.model_dump(mode="json"),
            "pools": list(self.pools),
            "mountains": list(self.mountains),
            "whists": [list(row) for row in self.whists],
            "finished": self.finished,
            "allpass_series": self.allpass_series,
            "history": [line.to_json() for line in self.history],
            "last_deal": self.last_deal,
            "last_dealer": self.last_dealer,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> ScoreSheet:
        """Rebuild a stored sheet; the columns are recomputed from the history and must match."""
        seats = int(data["seats"])
        sheet = ScoreSheet.new(seats, Conventions.model_validate(data["conventions"]))
        for line in data["history"]:
            sheet = sheet.write(HistoryLine.from_json(line))
        last_deal, last_dealer = data.get("last_deal"), data.get("last_dealer")
        sheet = replace(
            sheet,
            allpass_series=int(data.get("allpass_series", 0)),
            last_deal=None if last_deal is None else int(last_deal),
            last_dealer=None if last_dealer is None else int(last_dealer),
        )
        stored = (list(data["pools"]), list(data["mountains"]), [list(r) for r in data["whists"]])
        if stored != (list(sheet.pools), list(sheet.mountains), [list(r) for r in sheet.whists]):
            raise ScoringError("history", "the stored columns do not match the history")
        return sheet
