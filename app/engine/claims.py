"""Claims (RULES.md §4.10): the declarer claims tricks, the defence answers, the solver judges a rejection.

A claim stops play: the table moves to `Phase.CLAIM`, the declarer's hand is shown to everyone (§12) and
the answering seats accept or reject in turn, each on his own clock (`claim_answerer`). All accept: the
deal ends with the claimed tricks. A rejection ends the wait; the deal then awaits the solver's verdict
(`awaits_verdict`), which the server finds off the engine (`app.autoplay.claims`) and records as a
`ClaimVerdict`, so that a replay never searches. "stands" ends the deal as if all had accepted; "fails"
and "undecided" void the claim: play goes on where it stopped, the declarer's hand stays open and he may
not claim again in this deal.
"""

from __future__ import annotations

from dataclasses import replace as replace_claim

from app.engine.actions import AnswerClaim, Claim, ClaimVerdict
from app.engine.cards import card_texts
from app.engine.ending import deal_result, end_deal
from app.engine.errors import IllegalAction
from app.engine.events import Event, public
from app.engine.result import DealKind
from app.engine.state import ClaimState, DealState, Phase, TableState, defenders
from app.engine.state import evolve as replace


def remaining_tricks(deal: DealState) -> int:
    """Tricks not yet completed, the one in progress included."""
    return 10 - len(deal.tricks)


def claim_options(state: TableState) -> tuple[int, ...]:
    """The numbers of remaining tricks the declarer may claim now (empty: no claim is possible).

    Only in the card play of a contract or a misère, at the declarer's own turn, once a lone whister's
    open/closed choice is made, with the convention on and no claim made before in this deal.
    """
    deal = state.deal
    if (
        not state.conventions.claims
        or state.phase is not Phase.PLAY
        or deal is None
        or deal.allpass
        or deal.contract is None
        or deal.declarer is None
        or deal.claim is not None
        or deal.turn != deal.declarer
        or (deal.mode_chooser is not None and deal.mode is None)
    ):
        return ()
    remaining = remaining_tricks(deal)
    if deal.contract.is_misere:
        return (0,)  # "I take none of the rest"
    if _defence_counts_for_one(deal):
        # [ours] §4.10 "a number N of the remaining tricks": any N from 0 (conceding the rest) to all.
        return tuple(range(remaining + 1))
    return (remaining,)  # two whisters: only "the rest are mine"


def _defence_counts_for_one(deal: DealState) -> bool:
    """A lone whister (open or closed) or the 4-seat dealer who whisted: one player's tricks (§4.10)."""
    return deal.dealer_whist or len(deal.whisters) == 1


def answerers(state: TableState, deal: DealState) -> tuple[int, ...]:
    """Who answers a claim, in order (§4.10): the lone whister; the dealer after a dealer whist; two
    whisters the one after the declarer first; on a misère (for two included) both catching seats."""
    assert deal.contract is not None
    pair = defenders(deal)
    if deal.contract.is_misere:
        return pair
    if deal.dealer_whist:
        return (state.dealer,)
    return tuple(seat for seat in pair if seat in deal.whisters)


def claim_answerer(deal: DealState) -> int | None:
    """The seat whose answer the table waits for; None once all answered or one rejected."""
    claim = deal.claim
    if claim is None or claim.verdict is not None or claim.rejected:
        return None
    answered = {seat for seat, _ in claim.answers}
    for seat in claim.answerers:
        if seat not in answered:
            return seat
    return None


def awaits_verdict(state: TableState) -> bool:
    """A rejected claim waits for the solver (the server records the `ClaimVerdict`)."""
    deal = state.deal
    return (
        state.phase is Phase.CLAIM
        and deal is not None
        and deal.claim is not None
        and deal.claim.rejected
        and deal.claim.verdict is None
    )


def make_claim(state: TableState, deal: DealState, action: Claim) -> tuple[TableState, list[Event]]:
    options = claim_options(state)
    if not options:
        raise IllegalAction(_why_no_claim(state, deal))
    if action.tricks not in options:
        raise IllegalAction(
            f"claim {action.tricks}: the declarer may claim {', '.join(str(n) for n in options)} now"
        )
    claim = ClaimState(action.tricks, remaining_tricks(deal), answerers(state, deal))
    deal = replace(deal, claim=claim)
    assert deal.declarer is not None
    events = [
        public(
            "claim",
            seat=deal.declarer,
            tricks=action.tricks,
            remaining=claim.remaining,
            hand=card_texts(deal.hands[deal.declarer]),
        )
    ]
    return replace(state, phase=Phase.CLAIM, deal=deal), events


def _why_no_claim(state: TableState, deal: DealState) -> str:
    if not state.conventions.claims:
        return "claims are off at this table"
    if deal.claim is not None:
        return "the declarer has claimed once in this deal: no second claim"
    if deal.allpass or deal.contract is None:
        return "a claim is made only in the card play of a contract or a misère"
    if state.phase is Phase.PLAY and deal.turn == deal.declarer:
        return "a claim waits for the whister's open/closed choice"
    return "the declarer claims only at his own turn to play"


def answer_claim(state: TableState, deal: DealState, action: AnswerClaim) -> tuple[TableState, list[Event]]:
    claim = deal.claim
    assert claim is not None and claim_answerer(deal) == action.seat
    claim = replace_claim(claim, answers=(*claim.answers, (action.seat, action.accept)))
    deal = replace(deal, claim=claim)
    events = [public("claim_answer", seat=action.seat, accept=action.accept)]
    if claim_answerer(deal) is not None or claim.rejected:
        return replace(state, deal=deal), events  # the next answer, or the solver's verdict (§4.10)
    return _settle(state, deal, events)


def apply_verdict(state: TableState, action: ClaimVerdict) -> tuple[TableState, list[Event]]:
    if not awaits_verdict(state):
        raise IllegalAction("no rejected claim awaits a verdict")
    deal = state.deal
    assert deal is not None and deal.claim is not None
    deal = replace(deal, claim=replace_claim(deal.claim, verdict=action.verdict))
    events = [public("claim_verdict", verdict=action.verdict)]
    if action.verdict == "stands":
        return _settle(state, deal, events)
    # Void: play goes on where it stopped, at the declarer's turn, his hand open (§4.10).
    return replace(state, phase=Phase.PLAY, deal=deal), events


def _settle(state: TableState, deal: DealState, events: list[Event]) -> tuple[TableState, list[Event]]:
    """The deal ends with the claimed tricks; the remaining tricks not claimed go to the defence."""
    claim = deal.claim
    contract = deal.contract
    assert claim is not None and deal.declarer is not None and contract is not None
    taken = list(deal.taken)
    taken[deal.declarer] += claim.tricks
    taken[_defence_taker(deal)] += claim.remaining - claim.tricks
    deal = replace(deal, taken=tuple(taken), turn=None)
    kind = DealKind.MISERE if contract.is_misere else DealKind.GAME
    return end_deal(state, deal, deal_result(state, deal, kind), events)


def _defence_taker(deal: DealState) -> int:
    """The defender written the defence's unclaimed tricks: the lone whister, else the defender after the
    declarer **[ours: §4.10 says "go to the defence"; on a misère and after a dealer whist only the
    defence's total counts (§5), and two whisters can only be claimed all the rest]**."""
    pair = defenders(deal)
    lone = [seat for seat in pair if seat in deal.whisters]
    if len(lone) == 1 and not deal.dealer_whist:
        return lone[0]
    return pair[0]
