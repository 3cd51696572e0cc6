"""What a player's statistics count, from the deal results (`DealResult.to_json`) of the games they sat in.

- **Contracts**: per level (6..10), declared and made (the declarer took at least the level; a contract
  every defender passed is made without play; a застрел (declarer conceded) is declared, not made).
- **Misères**: played and caught (the declarer took a trick).
- **Whists**: calls of whist (and half-whists) and how those deals ended for the whister: the contract
  set (the declarer short of the level), and the tricks the whister took on average.
- **All-pass**: deals played and the player's tricks in them.
- **Index**: the final whist index (`Settlement.exact`) per settled pulya, and its average.
- **Time**: thinking time (from the table's previous action to the player's own) and deals lost on time.
- **Mistakes**: from the solver's analyses kept for the player's deals: cards that cost their side a
  trick, per analysed deal the player played in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from app.engine.bids import Bid


@dataclass(frozen=True, slots=True)
class GameFacts:
    """One holding of a seat by the player in one game (RULES §7.7: a seat may change hands, and a fourth
    joining renumbers the seats): the seat, in the numbering of the deals he played there; its settled index
    (None while not settled, or when the seat went to another holder: the settlement is the final
    holder's); when the game finished; the results of the deals he played in it; his thinking time in ms
    (on one of his holdings of the game); and the analyses of those deals (solver-seat analysis JSON and
    the table seat of each solver seat)."""

    table_id: int
    seat: int
    finished_at: float | None
    index: Fraction | None
    results: Sequence[Mapping[str, Any]]
    thinking_ms: int = 0
    analyses: Sequence[tuple[Mapping[str, Any], Sequence[int]]] = ()


@dataclass(slots=True)
class PlayerStats:
    pulyas: int = 0
    deals: int = 0
    declared: dict[int, int] = field(default_factory=lambda: dict.fromkeys(range(6, 11), 0))
    made: dict[int, int] = field(default_factory=lambda: dict.fromkeys(range(6, 11), 0))
    misere_played: int = 0
    misere_caught: int = 0
    whists: int = 0
    whists_set: int = 0  # whisted deals where the declarer fell short
    whist_tricks: int = 0
    allpass_deals: int = 0
    allpass_tricks: int = 0
    indices: list[tuple[int, float | None, float]] = field(default_factory=list)  # (table, at, index)
    thinking_ms: int = 0
    timeouts: int = 0
    analysed_deals: int = 0
    mistakes: int = 0
    tricks_lost: int = 0

    def to_json(self) -> dict[str, Any]:
        indices = [i for _, _, i in self.indices]
        return {
            "pulyas": self.pulyas,
            "deals": self.deals,
            "contracts": [
                {
                    "level": level,
                    "declared": self.declared[level],
                    "made": self.made[level],
                    "made_pct": _pct(self.made[level], self.declared[level]),
                }
                for level in range(6, 11)
            ],
            "misere": {
                "played": self.misere_played,
                "caught": self.misere_caught,
                "caught_pct": _pct(self.misere_caught, self.misere_played),
            },
            "whists": {
                "called": self.whists,
                "contract_set": self.whists_set,
                "tricks_per_whist": round(self.whist_tricks / self.whists, 2) if self.whists else None,
            },
            "allpass": {
                "deals": self.allpass_deals,
                "tricks": self.allpass_tricks,
                "tricks_per_deal": round(self.allpass_tricks / self.allpass_deals, 2)
                if self.allpass_deals
                else None,
            },
            "index": {
                "average": round(sum(indices) / len(indices), 2) if indices else None,
                "per_pulya": [{"table": t, "at": at, "index": round(i, 2)} for t, at, i in self.indices],
            },
            "time": {
                "thinking_s": round(self.thinking_ms / 1000, 1),
                "per_deal_s": round(self.thinking_ms / 1000 / self.deals, 1) if self.deals else None,
                "timeouts": self.timeouts,
            },
            "analysis": {
                "deals": self.analysed_deals,
                "mistakes": self.mistakes,
                "tricks_lost": self.tricks_lost,
                "mistakes_per_deal": round(self.mistakes / self.analysed_deals, 2)
                if self.analysed_deals
                else None,
            },
        }


def _pct(part: int, whole: int) -> float | None:
    return round(100 * part / whole, 1) if whole else None


def _count_deal(stats: PlayerStats, seat: int, result: Mapping[str, Any]) -> None:
    kind = result.get("type")
    tricks = {int(s): int(n) for s, n in (result.get("tricks") or {}).items()}
    if seat in (result.get("timed_out") or ()):
        stats.timeouts += 1
    if kind == "void":
        return
    stats.deals += 1
    declarer = result.get("declarer")
    if kind == "allpass":
        if seat in tricks:
            stats.allpass_deals += 1
            stats.allpass_tricks += tricks[seat]
        return
    if kind == "misere":
        if declarer == seat:
            stats.misere_played += 1
            stats.misere_caught += tricks.get(seat, 0) > 0
        return
    if kind not in ("game", "zastrel") or result.get("contract") is None:
        return
    level = Bid.parse(str(result["contract"])).level
    short = declarer is not None and tricks and tricks.get(int(declarer), 0) < level
    if declarer == seat and level in stats.declared:
        stats.declared[level] += 1
        stats.made[level] += kind == "game" and not short
    for caller, call in result.get("calls") or ():
        if int(caller) == seat and call in ("whist", "half-whist"):
            stats.whists += 1
            stats.whists_set += bool(short)
            stats.whist_tricks += tricks.get(seat, 0)


def player_stats(games: Iterable[GameFacts]) -> PlayerStats:
    stats = PlayerStats()
    for game in games:
        if game.index is not None:
            stats.pulyas += 1
            stats.indices.append((game.table_id, game.finished_at, float(game.index)))
        stats.thinking_ms += game.thinking_ms
        for result in game.results:
            _count_deal(stats, game.seat, result)
        for analysis, seats in game.analyses:
            if game.seat not in seats:
                continue  # the 4-seat dealer of that deal: not in play
            stats.analysed_deals += 1
            for card in analysis.get("cards", ()):
                if seats[int(card["seat"])] == game.seat and card["loss"]:
                    stats.mistakes += 1
                    stats.tricks_lost += int(card["loss"])
    stats.indices.sort(key=lambda x: (x[1] or 0.0, x[0]))
    return stats
