"""The table state machine: `apply`, `legal_actions`, `current_actor` (RULES.md §1–§4, §6, §8.4).

`apply(state, action)` validates the action against the rules of the current phase and returns the new
state and the events it produced; a rejected action raises an `EngineError` and changes nothing. Each
phase has its own module: `dealing`, `bidding`, `contract` (talon, discard, contract), `whisting`,
`play`, `ending` (results, timeouts, interruptions).
"""

from __future__ import annotations

from itertools import combinations

from app.engine import bidding
from app.engine.actions import (
    Action,
    AnswerClaim,
    AnswerInvitation,
    CallWhist,
    ChoosePlay,
    Claim,
    ClaimVerdict,
    DealerLook,
    Discard,
    Interrupt,
    InviteDealer,
    JoinFourth,
    MakeBid,
    NameContract,
    PassBid,
    PlayCard,
    Shuffle,
    TimeOut,
    Zastrel,
)
from app.engine.cards import card_texts
from app.engine.claims import answer_claim, apply_verdict, claim_answerer, make_claim
from app.engine.contract import contracts, discard, may_zastrel, name_contract
from app.engine.dealing import deal_cards
from app.engine.ending import deal_record, deal_result, end_deal, interrupt, timeout
from app.engine.errors import GameOver, IllegalAction, NotYourTurn
from app.engine.events import Event, private, public
from app.engine.joining import join_fourth
from app.engine.play import play_card, turn_cards
from app.engine.result import DealKind, PlayMode
from app.engine.state import Phase, TableState, defenders
from app.engine.state import evolve as replace
from app.engine.whisting import Ask, call_whist, choose_play, whist_step

__all__ = ["apply", "current_actor", "deal_record", "defenders", "legal_actions"]

_LIVE = (Phase.BIDDING, Phase.DEALER_INVITATION, Phase.DISCARD, Phase.CONTRACT, Phase.WHISTING,
         Phase.PLAY_MODE, Phase.PLAY, Phase.CLAIM)  # fmt: skip


def current_actor(state: TableState) -> int | None:
    """The seat the table waits for; None when a Shuffle is due or the table is stopped."""
    deal = state.deal
    if deal is None or state.phase not in _LIVE:
        return None
    if state.phase is Phase.PLAY_MODE:
        return deal.mode_chooser
    if state.phase is Phase.CLAIM:
        return claim_answerer(deal)  # None: the solver's verdict is due (`claims.awaits_verdict`)
    if state.phase is Phase.PLAY and deal.turn is not None:
        return deal.actor_of(deal.turn)
    return deal.turn


def legal_actions(state: TableState) -> list[Action]:
    """Every action the seat to act may take now (system actions TimeOut/Interrupt/ClaimVerdict are not
    listed, nor the declarer's optional claims: `claims.claim_options`)."""
    deal = state.deal
    phase = state.phase
    if phase is Phase.AWAITING_DEAL or phase is Phase.DEAL_OVER or deal is None:
        return []
    seat = current_actor(state)
    if seat is None:
        return []
    conv = state.conventions
    if phase is Phase.BIDDING:
        acts: list[Action] = [PassBid(seat)]
        acts += [MakeBid(seat, bid) for bid in bidding.legal_bids(deal, seat, conv, state.allpass_series)]
        if bidding.may_invite_dealer(deal, seat, state.seats, conv, state.allpass_series):
            acts.append(InviteDealer(seat))
        return acts
    if phase is Phase.DEALER_INVITATION:
        return [AnswerInvitation(seat, True), AnswerInvitation(seat, False)]
    if phase is Phase.DISCARD:
        return [Discard(seat, (a, b)) for a, b in combinations(deal.hands[seat], 2)]
    if phase is Phase.CONTRACT:
        acts = [NameContract(seat, c) for c in contracts(deal)]
        if may_zastrel(state, deal):
            acts.append(Zastrel(seat))
        return acts
    if phase is Phase.WHISTING:
        step = whist_step(state, deal)
        assert isinstance(step, Ask)
        acts = [CallWhist(seat, call) for call in step.calls]
        if step.dealer and not deal.dealer_seen:
            acts += [DealerLook(seat, target) for target in defenders(deal)]
        return acts
    if phase is Phase.PLAY_MODE:
        return [ChoosePlay(seat, PlayMode.OPEN), ChoosePlay(seat, PlayMode.CLOSED)]
    if phase is Phase.PLAY:
        return [PlayCard(seat, card) for card in turn_cards(deal)]
    if phase is Phase.CLAIM:
        return [AnswerClaim(seat, True), AnswerClaim(seat, False)]
    return []


def apply(state: TableState, action: Action) -> tuple[TableState, list[Event]]:
    """Apply one action; raise `EngineError` (state unchanged) if it is not allowed now."""
    if isinstance(action, Shuffle):
        return deal_cards(state, action)
    if isinstance(action, JoinFourth):  # §7.7: between deals, an interrupted one's end included
        return join_fourth(state, action)
    if state.phase is Phase.INTERRUPTED:
        raise GameOver("the deal was interrupted and awaits adjudication; no more actions")
    if isinstance(action, TimeOut | Interrupt):
        if state.phase not in _LIVE or state.deal is None:
            raise IllegalAction(f"{action.type}: no deal is in progress (phase {state.phase.value})")
        if isinstance(action, TimeOut):
            return timeout(state, state.deal, action.seat)
        return interrupt(state, action)
    if isinstance(action, ClaimVerdict):
        return apply_verdict(state, action)
    actor = current_actor(state)
    seat = action.seat
    if actor is None:
        raise NotYourTurn(f"no seat may act in phase {state.phase.value}; the next deal must be dealt")
    if seat != actor:
        raise NotYourTurn(f"seat {seat} acted, but the table waits for seat {actor} ({state.phase.value})")
    deal = state.deal
    assert deal is not None
    if isinstance(action, Discard):
        return discard(state, deal, action)
    if isinstance(action, PlayCard) and state.phase is Phase.PLAY and action.card in turn_cards(deal):
        return play_card(state, deal, action.card)  # the hot path: checked without building every action
    if isinstance(action, Claim):
        return make_claim(state, deal, action)
    legal = legal_actions(state)
    if action not in legal:
        expected = sorted({_describe(a) for a in legal})
        phase = state.phase.value
        raise IllegalAction(
            f"{_describe(action)} is not allowed in {phase}; expected one of: {', '.join(expected)}"
        )
    if isinstance(action, MakeBid | PassBid):
        return bidding.apply_bid(state, deal, action)
    if isinstance(action, InviteDealer):
        return bidding.invite_dealer(state, deal, seat)
    if isinstance(action, AnswerInvitation):
        return bidding.answer_invitation(state, deal, action)
    if isinstance(action, NameContract):
        return name_contract(state, deal, action.contract)
    if isinstance(action, Zastrel):
        result = deal_result(state, deal, DealKind.ZASTREL)
        return end_deal(state, deal, result, [public("zastrel", seat=seat)])
    if isinstance(action, CallWhist):
        return call_whist(state, deal, action)
    if isinstance(action, DealerLook):
        deal = replace(deal, dealer_seen=(*deal.dealer_seen, action.target))
        events = [
            public("dealer_look", seat=seat, target=action.target),
            private("shown_hand", {seat}, seat=action.target, cards=card_texts(deal.hands[action.target])),
        ]
        return replace(state, deal=deal), events
    if isinstance(action, ChoosePlay):
        return choose_play(state, deal, action.mode)
    if isinstance(action, AnswerClaim):
        return answer_claim(state, deal, action)
    assert isinstance(action, PlayCard)
    return play_card(state, deal, action.card)


def _describe(action: Action) -> str:
    data = action.to_json()
    data.pop("seat", None)
    return " ".join(str(v) for v in data.values())
