"""A fourth player joins three (RULES §7.7, [K 3.1.2], convention `fourth_may_join`): the pure arithmetic.

At the end of a deal, with the three seated players' consent, the newcomer sits to the left of the player
who has just dealt and deals the next deal. He writes the average of the three pools into his pool (rounded
down) and the average of their mountains into his mountain (rounded up: "не в пользу новенького"), and gets
the smallest reserve time left among the three. From then on the table plays at four seats, so the end of
§7.1 counts 4·S (`ScoreSheet.finished`).

Seats are numbered clockwise, so the newcomer's seat is ``last_dealer + 1`` and every seat after it moves
up by one: `seat_map` says where each old seat goes. The sheet's history is carried over with its writes
renumbered (the stored columns are rebuilt from it), followed by the newcomer's own line.
"""

from __future__ import annotations

from dataclasses import replace

from app.clock import ReserveClock, SeatTime
from app.engine.scoring.records import ScoringError, Write, mountain, pool
from app.engine.scoring.sheet import HistoryLine, ScoreSheet


def seat_map(last_dealer: int) -> tuple[int, ...]:
    """Where each of the three old seats sits at four: the newcomer takes ``last_dealer + 1``."""
    if not 0 <= last_dealer < 3:
        raise ScoringError("dealer", f"no seat {last_dealer} at a table of three")
    return tuple(s if s <= last_dealer else s + 1 for s in range(3))


def newcomer_seat(last_dealer: int) -> int:
    return last_dealer + 1


def join_sheet(sheet: ScoreSheet, last_dealer: int, name: str) -> ScoreSheet:
    """The four-seat sheet after the newcomer ``name`` joined, with his averages written."""
    if sheet.seats != 3:
        raise ScoringError("seats", "a fourth joins only a table of three")
    if sheet.finished:
        raise ScoringError("deal", "the pulya is over: nobody joins after its end (§7.7)")
    moved = seat_map(last_dealer)
    new = newcomer_seat(last_dealer)

    def renumbered(w: Write) -> Write:
        return replace(w, seat=moved[w.seat], target=None if w.target is None else moved[w.target])

    joined = ScoreSheet.new(4, sheet.conventions)
    for line in sheet.history:
        # [ours] §7.7: a deal played at three is never re-scored at four (a sanction, an award's revision):
        # its writes stand, renumbered, and its result (in the old seats) is not kept.
        joined = joined.write(replace(line, writes=tuple(renumbered(w) for w in line.writes), result=None))
    own_pool = sum(sheet.pools) // 3  # rounded down
    own_mountain = -(-sum(sheet.mountains) // 3)  # rounded up: not in the newcomer's favour
    writes = tuple(
        w
        for w in (
            pool(new, own_pool, "the average of the pools (rounded down)"),
            mountain(new, own_mountain, "the average of the mountains (rounded up)"),
        )
        if w.amount
    )
    summary = f"seat {new}: {name} joins after the deal dealt by seat {moved[last_dealer]}"
    joined = joined.write(HistoryLine("join", summary, writes))
    return replace(joined, allpass_series=sheet.allpass_series)


def join_clock(clock: ReserveClock, last_dealer: int) -> ReserveClock:
    """The four-seat clocks: the newcomer gets a full deal time and the smallest reserve left (§7.7)."""
    if len(clock.seats) != 3 or clock.running is not None:
        raise ValueError("a fourth joins a table of three between deals")
    moved = seat_map(last_dealer)
    seats: list[SeatTime | None] = [None] * 4
    for old, time in enumerate(clock.seats):
        seats[moved[old]] = time
    smallest = min(t.reserve_ms for t in clock.seats)
    seats[newcomer_seat(last_dealer)] = SeatTime(
        clock.settings.deal_ms, smallest, clock.settings.lag.quota_initial_ms
    )
    flagged = frozenset(moved[s] for s in clock.flagged)
    resume = None if clock.resume is None else moved[clock.resume]
    return replace(clock, seats=tuple(s for s in seats if s is not None), flagged=flagged, resume=resume)
