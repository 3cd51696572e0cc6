"""Everything that can happen at a table, as values: the game is its log of these (STYLE: replayable).

`Shuffle` is the recorded chance action that starts a deal; every other action names the acting seat.
Each action has a JSON form ``{"type": ..., ...}``; `action_from_json` rejects anything else with
`MalformedAction`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

from app.engine.bids import Bid
from app.engine.cards import DECK, Card
from app.engine.errors import MalformedAction
from app.engine.result import PlayMode, WhistCall


@dataclass(frozen=True, slots=True)
class Shuffle:
    """The deck order of a new deal: hands of 10 to the active seats from first hand, talon last two."""

    deck: tuple[Card, ...]
    type: ClassVar[str] = "shuffle"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "deck": [c.text for c in self.deck]}


@dataclass(frozen=True, slots=True)
class MakeBid:
    seat: int
    bid: Bid
    type: ClassVar[str] = "bid"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "bid": self.bid.text}


@dataclass(frozen=True, slots=True)
class PassBid:
    seat: int
    type: ClassVar[str] = "pass"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class InviteDealer:
    """Invite the 4-seat dealer to a misère for two (§3.3)."""

    seat: int
    type: ClassVar[str] = "invite_dealer"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class AnswerInvitation:
    seat: int
    accept: bool
    type: ClassVar[str] = "answer_invitation"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "accept": self.accept}


@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    cards: tuple[Card, Card]
    type: ClassVar[str] = "discard"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "cards": [c.text for c in self.cards]}


@dataclass(frozen=True, slots=True)
class NameContract:
    seat: int
    contract: Bid
    type: ClassVar[str] = "contract"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "contract": self.contract.text}


@dataclass(frozen=True, slots=True)
class Zastrel:
    """«Застрел»: concede three down without whists instead of naming a contract (§3.2)."""

    seat: int
    type: ClassVar[str] = "zastrel"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class CallWhist:
    seat: int
    call: WhistCall
    type: ClassVar[str] = "whist"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "call": self.call.value}


@dataclass(frozen=True, slots=True)
class DealerLook:
    """The 4-seat dealer looks at one defender's hand before deciding on a dealer whist (§4.8)."""

    seat: int
    target: int
    type: ClassVar[str] = "dealer_look"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "target": self.target}


@dataclass(frozen=True, slots=True)
class ChoosePlay:
    seat: int
    mode: PlayMode
    type: ClassVar[str] = "play_mode"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "mode": self.mode.value}


@dataclass(frozen=True, slots=True)
class PlayCard:
    """``seat`` is the acting seat: a lone open whister (or whisting dealer) plays both defender hands."""

    seat: int
    card: Card
    type: ClassVar[str] = "play"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "card": self.card.text}


@dataclass(frozen=True, slots=True)
class Claim:
    """The declarer claims ``tricks`` of the remaining tricks (§4.10; a misère: 0, "none of the rest")."""

    seat: int
    tricks: int
    type: ClassVar[str] = "claim"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "tricks": self.tricks}


@dataclass(frozen=True, slots=True)
class AnswerClaim:
    """A defender accepts or rejects the declarer's claim (§4.10)."""

    seat: int
    accept: bool
    type: ClassVar[str] = "claim_answer"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat, "accept": self.accept}


CLAIM_VERDICTS = ("stands", "fails", "undecided")


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """The solver's verdict on a rejected claim (§4.10), recorded by the server so the deal replays exactly:
    ``stands`` (the declarer takes the claimed tricks under optimal play), ``fails``, or ``undecided``
    (the solver's node budget ran out: the claim is void)."""

    verdict: str
    type: ClassVar[str] = "claim_verdict"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "verdict": self.verdict}


@dataclass(frozen=True, slots=True)
class TimeOut:
    """A seat's clock ran out (§8): recorded so the deal's outcome replays exactly."""

    seat: int
    type: ClassVar[str] = "timeout"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Interrupt:
    """The deal cannot be finished automatically and goes to an administrator (§8.4)."""

    reason: str
    type: ClassVar[str] = "interrupt"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class JoinFourth:
    """A fourth player joins three between deals (RULES §7.7, [K 3.1.2]): he takes ``seat``, left of the
    player who has just dealt, and every later seat moves up by one. The server's action, recorded in the
    log like a shuffle so that a table replays across the change of its seat count."""

    seat: int
    type: ClassVar[str] = "join"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "seat": self.seat}


Action: TypeAlias = (
    Shuffle
    | MakeBid
    | PassBid
    | InviteDealer
    | AnswerInvitation
    | Discard
    | NameContract
    | Zastrel
    | CallWhist
    | DealerLook
    | ChoosePlay
    | PlayCard
    | Claim
    | AnswerClaim
    | ClaimVerdict
    | TimeOut
    | Interrupt
    | JoinFourth
)


def shuffle_action(rng: random.Random) -> Shuffle:
    """A uniformly shuffled deck; pass `secrets.SystemRandom()` in production (§1.3)."""
    deck = list(DECK)
    rng.shuffle(deck)
    return Shuffle(tuple(deck))


def _seat(data: dict[str, Any], key: str = "seat") -> int:
    value = data.get(key)
    if type(value) is not int or not 0 <= value < 4:
        raise MalformedAction(f"{key!r} must be a seat number 0..3, got {value!r}")
    return value


def _text(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise MalformedAction(f"{key!r} must be a string, got {value!r}")
    return value


def _card(text: object, key: str) -> Card:
    try:
        return Card.parse(text)  # type: ignore[arg-type]
    except ValueError:
        raise MalformedAction(f"{key!r}: not a card: {text!r}") from None


def _bid(data: dict[str, Any], key: str) -> Bid:
    try:
        return Bid.parse(_text(data, key))
    except ValueError:
        raise MalformedAction(f"{key!r}: not a contract: {data.get(key)!r}") from None


def _cards(data: dict[str, Any], key: str, count: int) -> tuple[Card, ...]:
    value = data.get(key)
    if not isinstance(value, list) or len(value) != count:
        raise MalformedAction(f"{key!r} must be a list of {count} cards, got {value!r}")
    return tuple(_card(t, key) for t in value)


def _shuffle(data: dict[str, Any]) -> Shuffle:
    deck = _cards(data, "deck", 32)
    if len(set(deck)) != 32:
        raise MalformedAction("'deck' must hold each of the 32 cards once")
    return Shuffle(deck)


def _discard(data: dict[str, Any]) -> Discard:
    first, second = _cards(data, "cards", 2)
    return Discard(_seat(data), (first, second))


def _answer(data: dict[str, Any]) -> AnswerInvitation:
    accept = data.get("accept")
    if not isinstance(accept, bool):
        raise MalformedAction(f"'accept' must be true or false, got {accept!r}")
    return AnswerInvitation(_seat(data), accept)


def _claim(data: dict[str, Any]) -> Claim:
    tricks = data.get("tricks")
    if type(tricks) is not int or not 0 <= tricks <= 10:
        raise MalformedAction(f"'tricks' must be a number of tricks 0..10, got {tricks!r}")
    return Claim(_seat(data), tricks)


def _claim_answer(data: dict[str, Any]) -> AnswerClaim:
    accept = data.get("accept")
    if not isinstance(accept, bool):
        raise MalformedAction(f"'accept' must be true or false, got {accept!r}")
    return AnswerClaim(_seat(data), accept)


def _claim_verdict(data: dict[str, Any]) -> ClaimVerdict:
    verdict = data.get("verdict")
    if verdict not in CLAIM_VERDICTS:
        raise MalformedAction(f"'verdict' must be one of {', '.join(CLAIM_VERDICTS)}, got {verdict!r}")
    return ClaimVerdict(str(verdict))


def _whist(data: dict[str, Any]) -> CallWhist:
    try:
        return CallWhist(_seat(data), WhistCall(_text(data, "call")))
    except ValueError:
        raise MalformedAction(f"'call' must be pass, whist or half-whist, got {data.get('call')!r}") from None


def _mode(data: dict[str, Any]) -> ChoosePlay:
    try:
        return ChoosePlay(_seat(data), PlayMode(_text(data, "mode")))
    except ValueError:
        raise MalformedAction(f"'mode' must be open or closed, got {data.get('mode')!r}") from None


_PARSERS: dict[str, Any] = {
    "shuffle": _shuffle,
    "bid": lambda d: MakeBid(_seat(d), _bid(d, "bid")),
    "pass": lambda d: PassBid(_seat(d)),
    "invite_dealer": lambda d: InviteDealer(_seat(d)),
    "answer_invitation": _answer,
    "discard": _discard,
    "contract": lambda d: NameContract(_seat(d), _bid(d, "contract")),
    "zastrel": lambda d: Zastrel(_seat(d)),
    "whist": _whist,
    "dealer_look": lambda d: DealerLook(_seat(d), _seat(d, "target")),
    "play_mode": _mode,
    "play": lambda d: PlayCard(_seat(d), _card(d.get("card"), "card")),
    "claim": _claim,
    "claim_answer": _claim_answer,
    "claim_verdict": _claim_verdict,
    "timeout": lambda d: TimeOut(_seat(d)),
    "interrupt": lambda d: Interrupt(_text(d, "reason")[:500]),
    "join": lambda d: JoinFourth(_seat(d)),
}


def action_from_json(data: object) -> Action:
    if not isinstance(data, dict):
        raise MalformedAction(f"an action must be a JSON object, got {type(data).__name__}")
    kind = data.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        raise MalformedAction(f"unknown action type {kind!r} (known: {', '.join(_PARSERS)})")
    action: Action = parser(data)
    return action


def action_to_json(action: Action) -> dict[str, Any]:
    return action.to_json()
