"""The table state machine: `apply`, `legal_actions`, `current_actor` (RULES.md §1–§4, §6, §8.4).

`apply(state, action)` validates the action against the rules of the current phase and returns the new
state and the events it produced; a rejected action raises an `EngineError` and changes nothing.
"""

from __future__ import annotations

from itertools import combinations

from app.engine import bidding, whisting
from app.engine.actions import (
    Action,
    AnswerInvitation,
    CallWhist,
    ChoosePlay,
    DealerLook,
    Discard,
    Interrupt,
    InviteDealer,
    MakeBid,
    NameContract,
    PassBid,
    PlayCard,
    Shuffle,
    TimeOut,
    Zastrel,
)
from app.engine.bids import LADDER, MISERE, Bid
from app.engine.cards import Card, card_texts, sort_cards
from app.engine.errors import GameOver, IllegalAction, MalformedAction, NotYourTurn
from app.engine.events import Event, private, public
from app.engine.play import legal_cards, trick_winner
from app.engine.result import DealKind, DealResult, PlayMode, WhistCall, next_allpass_series
from app.engine.state import TALON, DealState, Phase, TableState
from app.engine.state import evolve as replace

_LIVE = (Phase.BIDDING, Phase.DEALER_INVITATION, Phase.DISCARD, Phase.CONTRACT, Phase.WHISTING,
         Phase.PLAY_MODE, Phase.PLAY)  # fmt: skip


# --------------------------------------------------------------------------------------------- queries


def current_actor(state: TableState) -> int | None:
    """The seat the table waits for; None when a Shuffle is due or the table is stopped."""
    deal = state.deal
    if deal is None or state.phase not in _LIVE:
        return None
    if state.phase is Phase.PLAY_MODE:
        return deal.mode_chooser
    if state.phase is Phase.PLAY and deal.turn is not None:
        return deal.actor_of(deal.turn)
    return deal.turn


def defenders(deal: DealState) -> tuple[int, int]:
    """The two other active seats, the one after the declarer first (§4.3)."""
    assert deal.declarer is not None
    i = deal.active.index(deal.declarer)
    n = len(deal.active)
    return deal.active[(i + 1) % n], deal.active[(i + 2) % n]


def _dealer_if_sitting_out(state: TableState) -> int | None:
    return state.dealer if state.seats == 4 else None


def _whist_step(state: TableState, deal: DealState) -> whisting.Ask | whisting.Outcome:
    assert deal.contract is not None
    return whisting.next_step(
        deal.calls, defenders(deal), deal.contract, state.conventions, _dealer_if_sitting_out(state)
    )


def _turn_cards(deal: DealState) -> tuple[Card, ...]:
    assert deal.turn is not None
    led = deal.trick[0][1] if deal.trick else None
    return legal_cards(deal.hands[deal.turn], led, deal.trump)


def legal_actions(state: TableState) -> list[Action]:
    """Every action the seat to act may take now (system actions TimeOut/Interrupt are not listed)."""
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
        acts = [NameContract(seat, c) for c in _contracts(deal)]
        if _may_zastrel(state, deal):
            acts.append(Zastrel(seat))
        return acts
    if phase is Phase.WHISTING:
        step = _whist_step(state, deal)
        assert isinstance(step, whisting.Ask)
        acts = [CallWhist(seat, call) for call in step.calls]
        if step.dealer and not deal.dealer_seen:
            acts += [DealerLook(seat, target) for target in defenders(deal)]
        return acts
    if phase is Phase.PLAY_MODE:
        return [ChoosePlay(seat, PlayMode.OPEN), ChoosePlay(seat, PlayMode.CLOSED)]
    if phase is Phase.PLAY:
        return [PlayCard(seat, card) for card in _turn_cards(deal)]
    return []


def _contracts(deal: DealState) -> list[Bid]:
    """§3.1: a trick contract at or above the bid, in the bid's talon mode; never misère after a trick bid."""
    assert deal.bid is not None
    bid = deal.bid
    return [c for c in LADDER if not c.is_misere and c.no_talon == bid.no_talon and c.rank >= bid.rank]


def _may_zastrel(state: TableState, deal: DealState) -> bool:
    """§3.2: in a series, after winning with one's only bid, 6♠ or 7♠ with talon («первичная заявка»)."""
    if not state.conventions.zastrel or state.allpass_series == 0 or deal.declarer is None:
        return False
    mine = bidding.own_bids(deal, deal.declarer)
    return len(mine) == 1 and mine[0] in (bidding.SIX_SPADES, bidding.SEVEN_SPADES)


# ----------------------------------------------------------------------------------------------- apply


def apply(state: TableState, action: Action) -> tuple[TableState, list[Event]]:
    """Apply one action; raise `EngineError` (state unchanged) if it is not allowed now."""
    if isinstance(action, Shuffle):
        return _shuffle(state, action)
    if state.phase is Phase.INTERRUPTED:
        raise GameOver("the deal was interrupted and awaits adjudication; no more actions")
    if isinstance(action, TimeOut | Interrupt):
        if state.phase not in _LIVE or state.deal is None:
            raise IllegalAction(f"{action.type}: no deal is in progress (phase {state.phase.value})")
        if isinstance(action, TimeOut):
            return _timeout(state, state.deal, action.seat)
        return _interrupt(state, action)
    actor = current_actor(state)
    seat = action.seat
    if actor is None:
        raise NotYourTurn(f"no seat may act in phase {state.phase.value}; the next deal must be dealt")
    if seat != actor:
        raise NotYourTurn(f"seat {seat} acted, but the table waits for seat {actor} ({state.phase.value})")
    deal = state.deal
    assert deal is not None
    if isinstance(action, Discard):
        return _discard(state, deal, action)
    if isinstance(action, PlayCard) and state.phase is Phase.PLAY and action.card in _turn_cards(deal):
        return _play(state, deal, action.card)  # the hot path: checked without building every action
    legal = legal_actions(state)
    if action not in legal:
        expected = sorted({_describe(a) for a in legal})
        phase = state.phase.value
        raise IllegalAction(
            f"{_describe(action)} is not allowed in {phase}; expected one of: {', '.join(expected)}"
        )
    if isinstance(action, MakeBid | PassBid):
        return _bid(state, deal, action)
    if isinstance(action, InviteDealer):
        deal = replace(deal, invitation_used=True, inviter=seat, turn=state.dealer,
                       dealer_seen=(*deal.dealer_seen, seat))  # fmt: skip
        events = [
            public("invitation", seat=seat),
            private("shown_hand", {state.dealer}, seat=seat, cards=card_texts(deal.hands[seat])),
        ]
        return replace(state, phase=Phase.DEALER_INVITATION, deal=deal), events
    if isinstance(action, AnswerInvitation):
        return _answer_invitation(state, deal, action)
    if isinstance(action, NameContract):
        return _name_contract(state, deal, action.contract)
    if isinstance(action, Zastrel):
        result = _result(state, deal, DealKind.ZASTREL)
        return _end_deal(state, deal, result, [public("zastrel", seat=seat)])
    if isinstance(action, CallWhist):
        return _call_whist(state, deal, action)
    if isinstance(action, DealerLook):
        deal = replace(deal, dealer_seen=(*deal.dealer_seen, action.target))
        events = [
            public("dealer_look", seat=seat, target=action.target),
            private("shown_hand", {seat}, seat=action.target, cards=card_texts(deal.hands[action.target])),
        ]
        return replace(state, deal=deal), events
    if isinstance(action, ChoosePlay):
        return _choose_play(state, deal, action.mode)
    assert isinstance(action, PlayCard)
    return _play(state, deal, action.card)


def _describe(action: Action) -> str:
    data = action.to_json()
    data.pop("seat", None)
    return " ".join(str(v) for v in data.values())


def _shuffle(state: TableState, action: Shuffle) -> tuple[TableState, list[Event]]:
    if state.phase not in (Phase.AWAITING_DEAL, Phase.DEAL_OVER):
        # §8.2 [ours]: reserve off, the game goes on after a deal archived as interrupted.
        if state.phase is Phase.INTERRUPTED and state.conventions.reserve_time > 0:
            raise GameOver("the deal was interrupted and awaits adjudication; no more actions")
        if state.phase is not Phase.INTERRUPTED:
            raise IllegalAction(f"a new deal cannot start during {state.phase.value}")
    if len(action.deck) != 32 or len(set(action.deck)) != 32:
        raise MalformedAction("a shuffle must order each of the 32 cards once")
    # An interrupted deal has no result yet: the series runs on as if it had not been played [ours, §8.2].
    series = next_allpass_series(state.allpass_series, state.last_result)
    dealer = state.next_dealer
    n = state.seats
    # First hand sits left of the dealer; the 4-seat dealer gets no cards (§1.2, §1.4).
    active = (
        tuple((dealer + k) % n for k in range(1, 4))
        if n == 4
        else ((dealer + 1) % 3, (dealer + 2) % 3, dealer)
    )
    dealt: list[tuple[Card, ...]] = [() for _ in range(n)]
    for k, seat in enumerate(active):
        dealt[seat] = sort_cards(action.deck[10 * k : 10 * k + 10])
    hands = tuple(dealt)
    deal = DealState(first_hand=active[0], active=active, dealt=hands, talon=action.deck[30:32], hands=hands,
                     turn=active[0], taken=(0,) * n)  # fmt: skip
    new = replace(state, phase=Phase.BIDDING, deal=deal, dealer=dealer, deal_number=state.deal_number + 1,
                  allpass_series=series, last_result=None, interrupt_reason=None)  # fmt: skip
    events = [public("deal_started", deal_number=new.deal_number, dealer=dealer, first_hand=active[0],
                     allpass_series=series)]  # fmt: skip
    events += [private("hand", {seat}, seat=seat, cards=card_texts(hands[seat])) for seat in active]
    return new, events


# -------------------------------------------------------------------------------------------- bidding


def _bid(state: TableState, deal: DealState, action: MakeBid | PassBid) -> tuple[TableState, list[Event]]:
    seat = action.seat
    if isinstance(action, PassBid):
        deal = replace(deal, auction=(*deal.auction, (seat, None)), passed=deal.passed | {seat})
        events = [public("bid", seat=seat, bid=None)]
    else:
        deal = replace(
            deal, auction=(*deal.auction, (seat, action.bid)), highest=action.bid, highest_seat=seat
        )
        events = [public("bid", seat=seat, bid=action.bid.text)]
    if not bidding.auction_over(deal):
        deal = replace(deal, turn=bidding.next_bidder(deal, seat))
        return replace(state, deal=deal), events
    if deal.highest_seat is None:
        return _start_allpass(state, deal, events)
    return _auction_won(state, deal, events)


def _answer_invitation(
    state: TableState, deal: DealState, action: AnswerInvitation
) -> tuple[TableState, list[Event]]:
    inviter = deal.inviter
    assert inviter is not None
    deal = replace(deal, inviter=None, turn=inviter)
    events = [public("invitation_answer", seat=action.seat, accept=action.accept)]
    if not action.accept:
        return replace(state, phase=Phase.BIDDING, deal=deal), events
    deal = replace(deal, misere_partner_of=inviter)
    state, more = _bid(replace(state, phase=Phase.BIDDING, deal=deal), deal, MakeBid(inviter, MISERE))
    return state, events + more


def _auction_won(state: TableState, deal: DealState, events: list[Event]) -> tuple[TableState, list[Event]]:
    declarer = deal.highest_seat
    bid = deal.highest
    assert declarer is not None and bid is not None
    deal = replace(deal, declarer=declarer, bid=bid, turn=declarer)
    events.append(public("auction_won", declarer=declarer, bid=bid.text))
    if bid.no_talon:
        if bid.is_misere:
            return _start_play(state, replace(deal, contract=bid), events)
        return replace(state, phase=Phase.CONTRACT, deal=deal), events
    hands = list(deal.hands)
    hands[declarer] = sort_cards(hands[declarer] + deal.talon)
    deal = replace(deal, hands=tuple(hands), talon_open=True)
    events.append(public("talon", cards=card_texts(deal.talon)))
    return replace(state, phase=Phase.DISCARD, deal=deal), events


def _discard(state: TableState, deal: DealState, action: Discard) -> tuple[TableState, list[Event]]:
    if state.phase is not Phase.DISCARD:
        raise IllegalAction(f"no discard is due in {state.phase.value}")
    first, second = action.cards
    hand = deal.hands[action.seat]
    if first is second or first not in hand or second not in hand:
        raise IllegalAction(f"discard two different cards of your hand, not {first} {second}")
    hands = list(deal.hands)
    hands[action.seat] = tuple(c for c in hand if c is not first and c is not second)
    discard = sort_cards((first, second))
    deal = replace(deal, hands=tuple(hands), discard=discard)
    events = [public("discarded", seat=action.seat),
              private("discard", {action.seat}, cards=card_texts(discard))]  # fmt: skip
    assert deal.bid is not None
    if deal.bid.is_misere:
        return _start_play(state, replace(deal, contract=deal.bid), events)
    return replace(state, phase=Phase.CONTRACT, deal=deal), events


def _name_contract(state: TableState, deal: DealState, contract: Bid) -> tuple[TableState, list[Event]]:
    deal = replace(deal, contract=contract)
    events = [public("contract", seat=deal.declarer, contract=contract.text)]
    if contract.level == 10 and not state.conventions.ten_whisted:
        return _end_deal(state, deal, _result(state, deal, DealKind.GAME), events)
    deal = replace(deal, turn=defenders(deal)[0])
    return replace(state, phase=Phase.WHISTING, deal=deal), events


# ------------------------------------------------------------------------------------------- whisting


def _call_whist(state: TableState, deal: DealState, action: CallWhist) -> tuple[TableState, list[Event]]:
    deal = replace(deal, calls=(*deal.calls, (action.seat, action.call)))
    events = [public("whist", seat=action.seat, call=action.call.value)]
    step = _whist_step(state, deal)
    if isinstance(step, whisting.Ask):
        return replace(state, deal=replace(deal, turn=step.seat)), events
    deal = replace(deal, whisters=step.whisters, half_whister=step.half_whister, returned=step.returned,
                   dealer_whist=step.dealer_whist)  # fmt: skip
    if not step.played:
        return _end_deal(state, deal, _result(state, deal, DealKind.GAME), events)
    pair = defenders(deal)
    if step.dealer_whist:
        deal = replace(deal, mode=PlayMode.OPEN, controller=tuple((h, state.dealer) for h in pair))
        return _start_play(state, deal, events)
    if len(step.whisters) == 2:
        return _start_play(state, replace(deal, mode=PlayMode.CLOSED), events)
    deal = replace(deal, mode_chooser=step.whisters[0])
    # §4.9: a declarer in first hand leads "in the dark" before the lone whister chooses.
    if deal.declarer == deal.first_hand:
        return _start_play(state, deal, events)
    deal = replace(deal, turn=None)
    return replace(state, phase=Phase.PLAY_MODE, deal=deal), events


def _choose_play(state: TableState, deal: DealState, mode: PlayMode) -> tuple[TableState, list[Event]]:
    whister = deal.mode_chooser
    assert whister is not None
    events = [public("play_mode", seat=whister, mode=mode.value)]
    deal = replace(deal, mode=mode, mode_chooser=None)
    if mode is PlayMode.OPEN:
        passer = next(h for h in defenders(deal) if h != whister)
        deal = replace(deal, controller=((passer, whister),))
    if deal.trick:  # the declarer already led in the dark
        deal = replace(deal, turn=_next_hand(deal, deal.trick[-1][0]))
        deal, opened = _open_defenders(deal, mode is PlayMode.OPEN)
        return replace(state, phase=Phase.PLAY, deal=deal), events + opened
    return _start_play(state, deal, events)


# ----------------------------------------------------------------------------------------------- play


def _open_defenders(deal: DealState, condition: bool) -> tuple[DealState, list[Event]]:
    if not condition or deal.open_hands:
        return deal, []
    pair = defenders(deal)
    event = public("hands_open", hands={str(h): card_texts(deal.hands[h]) for h in pair})
    return replace(deal, open_hands=frozenset(pair)), [event]


def _start_play(state: TableState, deal: DealState, events: list[Event]) -> tuple[TableState, list[Event]]:
    contract = deal.contract
    assert contract is not None
    deal = replace(deal, trump=None if contract.trump is None else int(contract.trump), turn=deal.first_hand)
    # §4.9, §12: a declarer in first hand leads in the dark; open hands are shown after that lead.
    open_now = _defenders_lie_open(deal) and deal.declarer != deal.first_hand
    deal, opened = _open_defenders(deal, open_now)
    return replace(state, phase=Phase.PLAY, deal=deal), events + opened


def _defenders_lie_open(deal: DealState) -> bool:
    """Open whist (chosen, or the dealer's) and misère both show the defenders' hands (§4.7, §4.8, §12)."""
    return deal.mode is PlayMode.OPEN or (deal.contract is not None and deal.contract.is_misere)


def _talon_in_play(state: TableState) -> bool:
    return state.seats == 4 or state.conventions.allpass_talon_at_three


def _start_allpass(state: TableState, deal: DealState, events: list[Event]) -> tuple[TableState, list[Event]]:
    if deal.timed_out:  # §8.4: an all-pass after a timed-out auction is not played
        return _end_deal(state, deal, _result(state, deal, DealKind.VOID), events)
    deal = replace(deal, allpass=True, trump=None, turn=deal.first_hand)
    events.append(public("allpass", series_step=state.allpass_series + 1))
    if _talon_in_play(state):
        deal, led = _lead_talon(deal, 0)
        events.append(led)
    return replace(state, phase=Phase.PLAY, deal=deal), events


def _lead_talon(deal: DealState, index: int) -> tuple[DealState, Event]:
    """§6.2: the talon card is the lead of all-pass tricks 1 and 2."""
    card = deal.talon[index]
    return replace(deal, trick=((TALON, card),)), public("card", hand=TALON, card=card.text)


def _next_hand(deal: DealState, hand: int) -> int:
    active = deal.active
    if hand == TALON:
        return deal.first_hand
    return active[(active.index(hand) + 1) % len(active)]


def _play(state: TableState, deal: DealState, card: Card) -> tuple[TableState, list[Event]]:
    hand = deal.turn
    assert hand is not None
    hands = list(deal.hands)
    hands[hand] = tuple(c for c in hands[hand] if c is not card)
    trick = (*deal.trick, (hand, card))
    deal = replace(deal, hands=tuple(hands), trick=trick)
    events = [public("card", hand=hand, card=card.text)]
    size = len(deal.active) + (1 if trick[0][0] == TALON else 0)
    if len(trick) < size:
        first_lead = not deal.tricks and len(trick) == 1 and hand == deal.declarer
        if first_lead and deal.mode_chooser is not None:  # §4.9: the whister chooses after the dark lead
            return replace(state, phase=Phase.PLAY_MODE, deal=replace(deal, turn=None)), events
        deal = replace(deal, turn=_next_hand(deal, hand))
        if first_lead and _defenders_lie_open(deal):
            deal, opened = _open_defenders(deal, True)  # §12: shown right after the declarer's dark lead
            events += opened
        return replace(state, deal=deal), events
    return _finish_trick(state, deal, events)


def _finish_trick(state: TableState, deal: DealState, events: list[Event]) -> tuple[TableState, list[Event]]:
    winner = trick_winner(deal.trick, deal.trump)
    taken = list(deal.taken)
    talon_taken = deal.talon_taken
    if winner == TALON:
        talon_taken += 1
    else:
        taken[winner] += 1
    done = len(deal.tricks) + 1
    deal = replace(deal, tricks=(*deal.tricks, deal.trick), winners=(*deal.winners, winner), trick=(),
                   last_trick=deal.trick, taken=tuple(taken), talon_taken=talon_taken)  # fmt: skip
    events.append(public("trick", number=done, winner=winner))
    if done == 10:
        kind = DealKind.ALLPASS if deal.allpass else DealKind.MISERE if _is_misere(deal) else DealKind.GAME
        return _end_deal(state, replace(deal, turn=None), _result(state, deal, kind), events)
    if deal.allpass and done == 1 and _talon_in_play(state):
        deal, led = _lead_talon(deal, 1)
        events.append(led)
        return replace(state, deal=replace(deal, turn=deal.first_hand)), events
    leader = deal.first_hand if deal.allpass and done == 2 and _talon_in_play(state) else winner
    return replace(state, deal=replace(deal, turn=leader)), events


def _is_misere(deal: DealState) -> bool:
    return deal.contract is not None and deal.contract.is_misere


# -------------------------------------------------------------------------------- timeouts, deal end


def _timeout(state: TableState, deal: DealState, seat: int) -> tuple[TableState, list[Event]]:
    if not 0 <= seat < state.seats:
        raise IllegalAction(f"seat {seat} is not at this {state.seats}-seat table")
    deal = replace(deal, timed_out=deal.timed_out | {seat})
    events = [public("timeout", seat=seat)]
    if not (deal.allpass and state.phase is Phase.PLAY and seat in deal.active):
        return replace(state, deal=deal), events
    # §8.4: the remaining all-pass tricks go to the timed-out player, at most allpass_timeout_cap written
    # to him in all — the talon's tricks that §6.2 writes to a 3-seat dealer count towards the cap.
    remaining = 10 - len(deal.tricks)
    taken = list(deal.taken)
    talon_part = deal.talon_taken if seat == state.dealer else 0
    capped = min(state.conventions.allpass_timeout_cap, taken[seat] + talon_part + remaining) - talon_part
    taken[seat] = max(taken[seat], capped)
    deal = replace(deal, taken=tuple(taken), turn=None)
    return _end_deal(state, deal, _result(state, deal, DealKind.ALLPASS), events)


def _interrupt(state: TableState, action: Interrupt) -> tuple[TableState, list[Event]]:
    new = replace(state, phase=Phase.INTERRUPTED, interrupt_reason=action.reason)
    return new, [public("interrupted", reason=action.reason)]


def _result(state: TableState, deal: DealState, kind: DealKind) -> DealResult:
    played = kind in (DealKind.ALLPASS, DealKind.MISERE) or (kind is DealKind.GAME and bool(deal.whisters))
    tricks = {seat: deal.taken[seat] for seat in deal.active} if played else None
    # A whister confirming his own whist (gentleman's choice not to switch) adds nothing to the record.
    calls: list[tuple[int, WhistCall]] = []
    for seat, call in deal.calls:
        if call is WhistCall.WHIST and (seat, WhistCall.WHIST) in calls:
            continue
        calls.append((seat, call))
    mode = deal.mode if kind is DealKind.GAME and played else None
    return DealResult(
        seats=state.seats,
        dealer=state.dealer,
        kind=kind,
        declarer=deal.declarer if kind in (DealKind.GAME, DealKind.MISERE, DealKind.ZASTREL) else None,
        contract=None if kind in (DealKind.ALLPASS, DealKind.VOID) else (deal.contract or deal.bid),
        calls=tuple(calls),
        play=mode,
        tricks=tricks,
        talon_tricks=deal.talon_taken if kind is DealKind.ALLPASS else 0,
        misere_partner=_misere_partner(state, deal),
        timed_out=tuple(sorted(deal.timed_out)),
    )  # fmt: skip


def _misere_partner(state: TableState, deal: DealState) -> int | None:
    """The dealer who joined the declarer's misère for two (§3.3), if any."""
    joined = deal.declarer is not None and deal.misere_partner_of == deal.declarer
    return state.dealer if joined else None


def _end_deal(
    state: TableState, deal: DealState, result: DealResult, events: list[Event]
) -> tuple[TableState, list[Event]]:
    events.append(public("deal_over", result=result.to_json(), record=deal_record(deal)))
    return replace(state, phase=Phase.DEAL_OVER, deal=deal, last_result=result), events


def deal_record(deal: DealState) -> dict[str, object]:
    """The full record shown to the table once a deal ends (§12)."""
    return {
        "hands": {str(s): card_texts(deal.dealt[s]) for s in deal.active},
        "talon": card_texts(deal.talon),
        "discard": card_texts(deal.discard),
        "tricks": [[[h, c.text] for h, c in trick] for trick in deal.tricks],
        "winners": list(deal.winners),
    }
