"""Hypothesis strategies for rule-consistent deal results (RULES.md §3–§6), independent of the engine."""

from __future__ import annotations

from hypothesis import strategies as st

from app.engine.bids import Bid, Strain
from app.engine.result import DealKind, DealResult, PlayMode, WhistCall

PASS, WHIST, HALF = WhistCall.PASS, WhistCall.WHIST, WhistCall.HALF_WHIST


def _split(draw: st.DrawFn, total: int, seats: list[int]) -> dict[int, int]:
    """Random trick counts for ``seats`` adding up to ``total``."""
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=len(seats) - 1, max_size=len(seats) - 1)))
    bounds = [0, *cuts, total]
    return {seat: bounds[i + 1] - bounds[i] for i, seat in enumerate(seats)}


@st.composite
def deal_results(draw: st.DrawFn, seats: int, dealer: int) -> DealResult:
    active = [s for s in range(seats) if seats == 3 or s != dealer]
    kind = draw(st.sampled_from(["game", "game", "game", "misere", "allpass", "zastrel"]))
    if kind == "allpass":
        talon = draw(st.integers(0, 2))
        tricks = _split(draw, 10 - talon, active)
        return DealResult(seats, dealer, DealKind.ALLPASS, tricks=tricks, talon_tricks=talon)
    declarer = draw(st.sampled_from(active))
    first, second = [active[(active.index(declarer) + k) % 3] for k in (1, 2)]
    if kind == "zastrel":
        contract = Bid(draw(st.sampled_from([6, 7])), Strain.SPADES)
        return DealResult(seats, dealer, DealKind.ZASTREL, declarer, contract)
    if kind == "misere":
        partner = dealer if seats == 4 and draw(st.booleans()) else None
        taken = draw(st.integers(0, 10))
        tricks = {declarer: taken, **_split(draw, 10 - taken, [first, second])}
        return DealResult(
            seats, dealer, DealKind.MISERE, declarer, Bid(0, None), tricks=tricks, misere_partner=partner
        )
    level = draw(st.integers(6, 10))
    contract = Bid(level, Strain(draw(st.integers(0, 4))), draw(st.booleans()))
    shapes = ["pass-pass", "whist-whist", "whist-pass", "pass-whist"]
    if level <= 7:
        shapes += ["pass-half", "pass-half-whist", "whist-pass-half"]
    if seats == 4:
        shapes += ["pass-pass-dealer"] + (["pass-half-pass-dealer"] if level <= 7 else [])
    calls = {
        "pass-pass": [(first, PASS), (second, PASS)],
        "whist-whist": [(first, WHIST), (second, WHIST)],
        "whist-pass": [(first, WHIST), (second, PASS)],
        "pass-whist": [(first, PASS), (second, WHIST)],
        "pass-half": [(first, PASS), (second, HALF)],
        "pass-half-whist": [(first, PASS), (second, HALF), (first, WHIST)],
        "whist-pass-half": [(first, WHIST), (second, PASS), (first, HALF)],
        "pass-pass-dealer": [(first, PASS), (second, PASS), (dealer, WHIST)],
        "pass-half-pass-dealer": [(first, PASS), (second, HALF), (first, PASS), (dealer, WHIST)],
    }[draw(st.sampled_from(shapes))]
    played = WHIST in dict(calls).values()  # a seat's last call stands (§4.4–§4.8)
    if not played:
        return DealResult(seats, dealer, DealKind.GAME, declarer, contract, tuple(calls))
    taken = draw(st.integers(0, 10))
    tricks = {declarer: taken, **_split(draw, 10 - taken, [first, second])}
    play = draw(st.sampled_from([PlayMode.OPEN, PlayMode.CLOSED]))
    return DealResult(seats, dealer, DealKind.GAME, declarer, contract, tuple(calls), play, tricks)
