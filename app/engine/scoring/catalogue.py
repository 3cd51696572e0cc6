"""Rule-violation catalogue (RULES.md §11; seed 001, with seed 002's all-pass overrides) as data.

Each entry names the violation, its phase, and the penalty per role; ``online=False`` marks violations that
only happen at a physical table (the server deals, validates every card and enforces the turn).
`app.engine.scoring.violations.apply_sanction` writes an entry's penalty into a score sheet.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final


class Phase(StrEnum):
    DEALING = "dealing"
    BIDDING = "bidding"
    CONTRACT = "contract"
    PLAY = "play"
    CONDUCT = "conduct"


class Role(StrEnum):
    DEALER = "dealer"
    DECLARER = "declarer"
    WHISTER = "whister"
    PLAYER = "player"  # the seed's merged column: any player holding cards, all-pass deals included


class Effect(StrEnum):
    """What a penalty does to the record."""

    NONE = "none"  # no penalty
    REDEAL = "redeal"  # the deal is dealt again: nothing written
    PROCEDURE = "procedure"  # a table procedure (exposed card, barred from bidding): nothing written
    OUTSIDE_RECORD = "outside-record"  # e.g. tournament points: not in the pulya
    MOUNTAIN_POINTS = "mountain-points"  # "2 points to mountain"
    DOWN_TRICKS = "down-tricks"  # "without N" on the deal's contract
    LOSES_TRICKS = "loses-tricks"  # loses N tricks; on misère and all-pass N tricks are added instead
    EXTRA_TRICKS = "extra-tricks"  # all-pass: N more tricks (seed 002: the 11th and 12th)
    DAMAGE_WHISTS = "damage-whists"  # the damaged players write the damage as whists on the offender


WRITTEN: Final = frozenset(
    {
        Effect.MOUNTAIN_POINTS,
        Effect.DOWN_TRICKS,
        Effect.LOSES_TRICKS,
        Effect.EXTRA_TRICKS,
        Effect.DAMAGE_WHISTS,
    }
)


@dataclass(frozen=True, slots=True)
class Penalty:
    text: str
    effect: Effect
    amount: int = 0  # points or tricks, per effect
    on_repeat: bool = False  # the written effect is for a repeated offence; the first is procedural

    @property
    def expressible(self) -> bool:
        return self.effect in WRITTEN


@dataclass(frozen=True, slots=True)
class Violation:
    key: str
    phase: Phase
    name: str
    seed_name: str  # the seed's own heading, for judges reading the Russian table
    penalties: Mapping[Role, Penalty]
    online: bool  # can it happen in online play at all
    source: str = "seed 001"


def _v(
    key: str,
    phase: Phase,
    name: str,
    seed_name: str,
    penalties: dict[Role, Penalty],
    *,
    online: bool = False,
    source: str = "seed 001",
) -> Violation:
    return Violation(key, phase, name, seed_name, MappingProxyType(penalties), online, source)


_REDEAL = Penalty("redeal", Effect.REDEAL)
_TWO_ON_REPEAT = "redeal; repeated: 2 points to mountain"
_EXPOSED = Penalty("the card is exposed (lies on the table)", Effect.PROCEDURE)
D, P, DC, W = Role.DEALER, Role.PLAYER, Role.DECLARER, Role.WHISTER

CATALOGUE: Final[tuple[Violation, ...]] = (
    # Dealing errors: the server deals, so none of these can happen online.
    _v("exposed-card-in-deal", Phase.DEALING, "a card exposed while dealing", "Вскрыта карта", {D: _REDEAL}),
    _v(
        "deal-out-of-turn",
        Phase.DEALING,
        "dealing out of turn",
        "Сдача вне очереди",
        {D: Penalty("redeal, if noticed before the deal is complete", Effect.REDEAL)},
    ),
    _v(
        "wrong-card-count-in-deal",
        Phase.DEALING,
        "wrong number of cards (in all, or per round)",
        "Количество (всего, за раз)",
        {D: Penalty("redeal, if noticed before the bidding", Effect.REDEAL)},
    ),
    _v(
        "wrong-dealing-direction",
        Phase.DEALING,
        "dealing in the wrong direction",
        "Неверное направление сдачи",
        {D: Penalty("redeal, if noticed before the bidding", Effect.REDEAL)},
    ),
    _v(
        "talon-dealt-untimely",
        Phase.DEALING,
        "the talon dealt at the wrong moment",
        "Не вовремя сдан прикуп",
        {
            D: Penalty(
                "redeal if before the cards are picked up; afterwards played, no penalty", Effect.REDEAL
            )
        },
    ),
    _v(
        "bad-cut",
        Phase.DEALING,
        "error in cutting the deck",
        "Сдвиг",
        {D: Penalty(_TWO_ON_REPEAT, Effect.MOUNTAIN_POINTS, 2, on_repeat=True)},
    ),
    _v("short-deck", Phase.DEALING, "cards missing from the deck", "Недостаток карт в колоде", {D: _REDEAL}),
    _v(
        "looked-before-deal-complete",
        Phase.DEALING,
        "looked at the cards before the deal was complete",
        "Посмотрел карты до окончания сдачи",
        {
            D: Penalty(_TWO_ON_REPEAT, Effect.MOUNTAIN_POINTS, 2, on_repeat=True),
            P: Penalty(_TWO_ON_REPEAT, Effect.MOUNTAIN_POINTS, 2, on_repeat=True),
        },
    ),
    _v(
        "bad-lift",
        Phase.DEALING,
        "error in lifting the cut (any, found before the deal is complete)",
        "Съем",
        {
            D: Penalty(
                "redeal; a second redeal by the dealer's fault: 2 points to mountain",
                Effect.MOUNTAIN_POINTS,
                2,
                on_repeat=True,
            )
        },
    ),
    _v(
        "saw-talon-by-accident",
        Phase.DEALING,
        "saw the talon by accident",
        "Увидел прикуп случайно",
        {
            P: Penalty(
                "barred from the bidding; in an all-pass deal the first two tricks are his", Effect.PROCEDURE
            )
        },
    ),
    _v(
        "took-talon",
        Phase.DEALING,
        "took the talon",
        "Взял прикуп",
        {P: Penalty("barred from the bidding; the dealer reshuffles and draws two cards", Effect.PROCEDURE)},
    ),
    _v(
        "dealer-looked-at-talon",
        Phase.DEALING,
        "the dealer looked at the talon",
        "Посмотрел прикуп",
        {D: Penalty("2 points to mountain", Effect.MOUNTAIN_POINTS, 2)},
    ),
    # Bidding errors: the server enforces the turn and takes only well-formed bids.
    _v(
        "bid-out-of-turn",
        Phase.BIDDING,
        "bid out of turn",
        "Нарушена очередность",
        {
            P: Penalty(
                "none if he won the talon in normal bidding; otherwise as an exposed card: the declarer may "
                "forbid that suit at the offender's first lead",
                Effect.PROCEDURE,
            )
        },
    ),
    _v("card-shown-in-bidding", Phase.BIDDING, "showed a card", "Показ карты", {P: _EXPOSED}),
    _v(
        "looked-at-talon-in-bidding",
        Phase.BIDDING,
        "looked at the talon",
        "Посмотрел прикуп",
        {
            D: Penalty("2 points to mountain", Effect.MOUNTAIN_POINTS, 2),
            P: Penalty(
                "barred from the bidding; any damage to others is compensated in whists at his expense",
                Effect.DAMAGE_WHISTS,
            ),
        },
    ),
    _v(
        "opened-talon",
        Phase.BIDDING,
        "turned the talon face up",
        "Вскрыл прикуп",
        {
            role: Penalty(
                "one player still bidding: he gets the talon; two: the cards are opened, the games are "
                "judged and the outcome is written as whists on the offender",
                Effect.DAMAGE_WHISTS,
            )
            for role in (D, P)
        },
    ),
    _v(
        "non-standard-bidding",
        Phase.BIDDING,
        "bidding in words other than the standard ones",
        "«Ненормативная» торговля",
        {
            P: Penalty(
                "repeated: 2 points; doubts go against the offender",
                Effect.MOUNTAIN_POINTS,
                2,
                on_repeat=True,
            )
        },
    ),
    # Naming the contract.
    _v(
        "wrong-card-count-at-contract",
        Phase.CONTRACT,
        "wrong number of cards after the discard",
        "Количество карт",
        {
            DC: Penalty(
                "without two on the named contract; if the defenders prove the remiz was certain, the two "
                "are added to the tricks he would have lost",
                Effect.DOWN_TRICKS,
                2,
            )
        },
    ),
    _v(
        "looked-at-discard",
        Phase.CONTRACT,
        "looked into the discard",
        "Заглянул в снос",
        {P: Penalty("after the first lead: a penalty of one trick", Effect.LOSES_TRICKS, 1)},
    ),
    _v(
        "cards-shown-at-contract",
        Phase.CONTRACT,
        "showed cards",
        "Показ карт",
        {DC: Penalty("the cards are exposed", Effect.PROCEDURE)},
    ),
    _v(
        "non-standard-contract",
        Phase.CONTRACT,
        "named the contract in non-standard words",
        "«Ненормативный» заказ",
        {DC: Penalty("repeated: 2 points to mountain", Effect.MOUNTAIN_POINTS, 2, on_repeat=True)},
    ),
    # Play: the server validates every card and the turn.
    _v(
        "lead-out-of-turn",
        Phase.PLAY,
        "led out of turn",
        "Очередность хода",
        {
            P: Penalty(
                "the card is exposed; in an all-pass deal see allpass-lead-out-of-turn", Effect.PROCEDURE
            )
        },
    ),
    _v(
        "wrong-card-count-in-play",
        Phase.PLAY,
        "wrong number of cards in play",
        "Количество карт",
        {P: Penalty("without two; two more if he is proven to have had no tricks", Effect.DOWN_TRICKS, 2)},
    ),
    _v(
        "saw-earlier-trick",
        Phase.PLAY,
        "looked at a trick other than the last one",
        "Увидел не последнюю взятку",
        {
            P: Penalty(
                "loses a trick; on misère and in all-pass deals a trick is added", Effect.LOSES_TRICKS, 1
            )
        },
    ),
    _v(
        "cards-shown-in-play",
        Phase.PLAY,
        "showed cards during play",
        "Показ карт",
        {
            DC: Penalty("the card is exposed; the defenders cannot forbid him to lead it", Effect.PROCEDURE),
            W: Penalty(
                "the card is exposed; the declarer may forbid or order the other defender's lead "
                "in that suit",
                Effect.PROCEDURE,
            ),
        },
    ),
    _v(
        "revoke",
        Phase.PLAY,
        "false renounce (revoke)",
        "Фальшренонс",
        {
            P: Penalty(
                "found before the next lead: the card is exposed; found later: at least one trick, the play "
                "is restored and continued, doubts against the offender",
                Effect.LOSES_TRICKS,
                1,
            )
        },
    ),
    _v(
        "signals",
        Phase.PLAY,
        "extra words, gestures or signs",
        "«Лишние» слова, жесты, знаки",
        {W: Penalty("repeated: without one", Effect.DOWN_TRICKS, 1, on_repeat=True)},
        online=True,
    ),
    _v(
        "impossible-game-played",
        Phase.PLAY,
        "an impossible game was played",
        "Сыграна «невозможная» игра",
        {DC: Penalty("no penalty", Effect.NONE)},
    ),
    # Seed 002 overrides seed 001 in all-pass deals (RULES.md §11).
    _v(
        "allpass-lead-out-of-turn",
        Phase.PLAY,
        "led out of turn in an all-pass deal",
        "Ход вне очереди (распасы)",
        {P: Penalty("two extra tricks, the 11th and 12th", Effect.EXTRA_TRICKS, 2)},
        source="seed 002",
    ),
    _v(
        "allpass-revoke",
        Phase.PLAY,
        "false renounce in an all-pass deal",
        "Фальшренонс на распасах",
        {
            P: Penalty(
                "two extra tricks, the 11th and 12th; the tricks after it are shared by consensus or "
                "the judge",
                Effect.EXTRA_TRICKS,
                2,
            )
        },
        source="seed 002",
    ),
    _v(
        "arguing-with-judge",
        Phase.CONDUCT,
        "arguing with the judge",
        "Спор с судьёй",
        {P: Penalty("−100 tournament points (outside the pulya)", Effect.OUTSIDE_RECORD, 100)},
        online=True,
        source="seed 002",
    ),
)

BY_KEY: Final[Mapping[str, Violation]] = MappingProxyType({v.key: v for v in CATALOGUE})


def catalogue_json() -> list[dict[str, object]]:
    """The catalogue as JSON for a judge's screen: each entry with its penalties per role."""
    return [
        {
            "key": v.key,
            "phase": v.phase.value,
            "name": v.name,
            "seed_name": v.seed_name,
            "source": v.source,
            "online": v.online,
            "penalties": {
                role.value: {
                    "text": p.text,
                    "effect": p.effect.value,
                    "amount": p.amount,
                    "on_repeat": p.on_repeat,
                    "expressible": p.expressible,
                }
                for role, p in v.penalties.items()
            },
        }
        for v in CATALOGUE
    ]
