"""Small builders so the tests read like score-sheet entries."""

from __future__ import annotations

from app.engine.bids import Bid
from app.engine.conventions import Conventions
from app.engine.result import DealKind, DealResult, PlayMode, WhistCall
from app.engine.scoring import ScoreSheet

PASS, WHIST, HALF = WhistCall.PASS, WhistCall.WHIST, WhistCall.HALF_WHIST


def game(
    dealer: int,
    declarer: int,
    contract: str,
    calls: list[tuple[int, WhistCall]] | None = None,
    tricks: dict[int, int] | None = None,
    *,
    seats: int = 3,
    play: PlayMode | None = None,
) -> DealResult:
    return DealResult(
        seats, dealer, DealKind.GAME, declarer, Bid.parse(contract), tuple(calls or ()), play, tricks
    )


def misere(
    dealer: int, declarer: int, tricks: dict[int, int], *, seats: int = 3, partner: int | None = None
) -> DealResult:
    return DealResult(
        seats, dealer, DealKind.MISERE, declarer, Bid.parse("misere"), tricks=tricks, misere_partner=partner
    )


def allpass(dealer: int, tricks: dict[int, int], *, seats: int = 3, talon: int = 0) -> DealResult:
    return DealResult(seats, dealer, DealKind.ALLPASS, tricks=tricks, talon_tricks=talon)


def zastrel(dealer: int, declarer: int, contract: str, *, seats: int = 3) -> DealResult:
    return DealResult(seats, dealer, DealKind.ZASTREL, declarer, Bid.parse(contract))


def sheet_after(*deals: DealResult, seats: int = 3, conventions: Conventions | None = None) -> ScoreSheet:
    sheet = ScoreSheet.new(seats, conventions)
    for deal in deals:
        sheet = sheet.apply(deal)
    return sheet
