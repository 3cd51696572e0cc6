"""The table step's part for the pulya's life outside the deal (RULES.md §7.7): proposals and what an
agreed one does — settle now, adjourn (every clock frozen; resumed when all say "ready"; settled as an
early end past `adjourn_limit`), a substitute taking a seat from the next deal — and the operators'
decisions without consents. The bookkeeping of proposals is `app.table.proposals`; the moves are
`app.table.step`'s, which calls `before_next_deal` each time a deal is over.
"""

from __future__ import annotations

from dataclasses import replace

from app.engine.actions import JoinFourth
from app.engine.events import public
from app.engine.scoring.sheet import HistoryLine
from app.engine.state import Phase
from app.protocol.codes import ErrorCode
from app.table.commands import (
    AdjournExpiry,
    Answer,
    AskToJoin,
    Decree,
    LifeCommand,
    Propose,
    Ready,
    SubstituteAnswer,
    Withdraw,
    WithdrawJoin,
)
from app.table.errors import TableRefused
from app.table.fourth import join_clock, join_sheet, newcomer_seat, seat_map
from app.table.game import TableStatus, Termination
from app.table.proposals import (
    Adjournment,
    Proposal,
    ProposalKind,
    answer,
    ask_to_join,
    decree,
    propose,
    substitute_answer,
    substitution_line,
    withdraw,
    withdraw_join,
)
from app.table.step import Joined, Step, Substitution, _drive, _finish, _record, _Run
from app.tournament.seating import is_tournament_table

_BETWEEN = (Phase.AWAITING_DEAL, Phase.DEAL_OVER, Phase.INTERRUPTED)


def life_step(run: _Run, command: LifeCommand) -> Step:
    """One §7.7 command applied (answering is not a move: no clock is touched unless the game resumes)."""
    if isinstance(command, AdjournExpiry):
        return _expiry(run)
    if run.status not in (TableStatus.PLAYING, TableStatus.ADJOURNED):
        raise TableRefused(ErrorCode.GAME_OVER, "the game has ended")
    seats = run.state.seats
    match command:
        case Propose(seat, kind, holder, substitute, seated, tournament):
            _seat(seat, seats)
            if tournament or is_tournament_table(run.state.conventions):
                # §7.7, §9.5: in a tournament players call the judge instead.
                raise TableRefused(ErrorCode.TOURNAMENT_TABLE, "a tournament table takes no proposals")
            if kind is ProposalKind.ADJOURN and run.adjourned is not None:
                raise TableRefused(ErrorCode.ADJOURNED, "the game is adjourned already")
            made = propose(run.proposal, kind, seat, run.state.deal_number, holder=holder,
                           substitute=substitute, seated=seated)  # fmt: skip
            _set(run, made, "proposal_made")
        case Answer(seat, accept):
            _seat(seat, seats)
            answered = answer(run.proposal, seat, accept)
            _set(run, answered, "proposal_answered" if accept else "proposal_declined")
        case SubstituteAnswer(user_id, accept):
            answered = substitute_answer(run.proposal, user_id, accept)
            _set(run, answered, "proposal_answered" if accept else "proposal_declined")
        case Withdraw(seat):
            _seat(seat, seats)
            withdraw(run.proposal, seat, seats)
            _set(run, None, "proposal_withdrawn")
        case AskToJoin(newcomer, seated, tournament):
            _may_join(run, tournament)
            _set(run, ask_to_join(run.proposal, newcomer, run.state.deal_number, seated), "proposal_made")
        case WithdrawJoin(user_id):
            withdraw_join(run.proposal, user_id, seats)
            _set(run, None, "proposal_withdrawn")
        case Ready(seat):
            _seat(seat, seats)
            return _ready(run, seat)
        case Decree(kind, reason, seat, holder, substitute, seated, resume):
            if resume:
                if run.adjourned is None:
                    raise TableRefused(ErrorCode.NOT_ADJOURNED, "the game is not adjourned")
                run.events.append(public("resumed", reason=reason[:500]))
                return _resume(run)
            if seat is not None:
                _seat(seat, seats)
            if kind is ProposalKind.ADJOURN and run.adjourned is not None:
                raise TableRefused(ErrorCode.ADJOURNED, "the game is adjourned already")
            deal = run.state.deal_number
            made = decree(kind, deal, reason, seat=seat, holder=holder, substitute=substitute, seated=seated)
            if run.proposal is not None:
                run.events.append(public("proposal_lapsed"))  # an operator's decision replaces it
            _set(run, made, "proposal_made")
    proposal = run.proposal
    if proposal is not None and proposal.agreed(seats):
        run.events.append(public("proposal_agreed", proposal=proposal.to_json()))
        if run.adjourned is not None or run.state.phase in _BETWEEN:
            # §7.7: between deals and while adjourned an agreed proposal takes effect at once.
            if run.adjourned is None:
                _drive(run)
            else:
                if proposal.kind is ProposalKind.SETTLE:  # the adjournment ends with the game
                    run.clock, run.adjourned = run.clock.thaw(run.now), None
                _take_effect(run, proposal)
    return run.result()


def before_next_deal(run: _Run) -> bool:
    """Called by the step's moves between deals, before the next shuffle: an agreed proposal takes effect
    (False: the table stops here — ended or adjourned); an open one lapses as the next deal starts."""
    proposal = run.proposal
    if proposal is not None and proposal.agreed(run.state.seats):
        _take_effect(run, proposal)
        return run.status is TableStatus.PLAYING
    if proposal is not None:
        run.events.append(public("proposal_lapsed", proposal=proposal.to_json()))
        run.proposal = None
    return True


# ------------------------------------------------------------------------------------------- effects


def _take_effect(run: _Run, proposal: Proposal) -> None:
    run.proposal = None
    note = proposal.reason
    match proposal.kind:
        case ProposalKind.SETTLE:
            if note is None:
                _finish(run, Termination.AGREED, run.sheet, note="settled by agreement")
            else:  # an operator's decision, recorded with its reason (§7.7)
                _finish(run, Termination.INTERRUPTED, run.sheet, note=note)
        case ProposalKind.ADJOURN:
            run.status = TableStatus.ADJOURNED
            run.adjourned = Adjournment(run.moves.wall_ms)
            run.clock = run.clock.freeze(run.now)  # between deals no seat runs: all stay as they are
            run.events.append(public("adjourned", since_wall_ms=run.moves.wall_ms, reason=note))
        case ProposalKind.SUBSTITUTE:
            seat, holder, substitute = proposal.seat, proposal.holder, proposal.substitute
            assert seat is not None and holder is not None and substitute is not None
            after = run.state.deal_number
            run.sheet = run.sheet.write(HistoryLine("substitute", substitution_line(proposal, after), ()))
            run.substituted.append(Substitution(seat, holder, substitute, after))
            run.events.append(
                public("substituted", seat=seat, user=substitute.name, previous=holder.name, after_deal=after,
                       reason=note)
            )  # fmt: skip
        case ProposalKind.JOIN:
            _join(run, proposal)


def _may_join(run: _Run, tournament: bool) -> None:
    """§7.7: who may be asked to take a fourth — refused, typed, in a tournament, by the conventions, at a
    table of four (the game over is refused before this)."""
    state = run.state
    if tournament or is_tournament_table(state.conventions):
        raise TableRefused(ErrorCode.TOURNAMENT_TABLE, "a fourth joins no tournament table")
    if not state.conventions.fourth_may_join:
        raise TableRefused(ErrorCode.NO_FOURTH, "the table's conventions let no fourth player join")
    if state.seats != 3:
        raise TableRefused(ErrorCode.TABLE_FULL, "a fourth joins a table of three; this one has four")
    if run.pending:
        # [ours] §7.7: an interrupted deal awaiting its award is scored in the seats it was played in.
        raise TableRefused(ErrorCode.INVALID_PROPOSAL, "a deal of this table awaits an award; join after it")


def _join(run: _Run, proposal: Proposal) -> None:
    """§7.7, [K 3.1.2]: the newcomer sits left of the player who has just dealt and deals the next deal,
    with the averages written (`app.table.fourth`) and the smallest reserve left; the seat count changes
    by a recorded action, so the table replays across it."""
    newcomer = proposal.newcomer
    assert newcomer is not None
    if run.pending:  # [ours]: a deal interrupted since the asking awaits its award at three (see _may_join)
        run.events.append(public("proposal_lapsed", proposal=proposal.to_json()))
        return
    last_dealer = run.state.dealer
    seat, moved, after = newcomer_seat(last_dealer), seat_map(last_dealer), run.state.deal_number
    before = len(run.events)
    run.clock = join_clock(run.clock, last_dealer)
    run.sheet = join_sheet(run.sheet, last_dealer, newcomer.name)
    _record(run, JoinFourth(seat), None)
    if run.adjourned is not None:  # joined while adjourned: the ready seats renumbered, his not yet
        run.adjourned = replace(run.adjourned, ready=frozenset(moved[s] for s in run.adjourned.ready))
    run.joined = Joined(newcomer, seat, moved, after, before)
    run.events.append(public("joined", seat=seat, user=newcomer.name, after_deal=after, seats=4))


def _ready(run: _Run, seat: int) -> Step:
    adjourned = run.adjourned
    if adjourned is None:
        raise TableRefused(ErrorCode.NOT_ADJOURNED, "the game is not adjourned")
    ready = adjourned.ready | {seat}
    run.adjourned = replace(adjourned, ready=ready)
    run.events.append(public("ready", seat=seat, ready=sorted(ready)))
    if len(ready) < run.state.seats:
        return run.result()
    run.events.append(public("resumed"))
    return _resume(run)


def _resume(run: _Run) -> Step:
    """§7.7: the seat to deal and the clocks are as they were; the next deal is dealt."""
    run.status = TableStatus.PLAYING
    run.adjourned = None
    run.clock = run.clock.thaw(run.now)
    _drive(run)
    return run.result()


def _expiry(run: _Run) -> Step:
    """§7.7: an adjournment not resumed within `adjourn_limit` (counted from the adjournment, on the wall
    clock: restarts do not stop it) is settled as it stands, as an early end."""
    adjourned = run.adjourned
    if run.status is not TableStatus.ADJOURNED or adjourned is None:
        return run.result()
    limit_ms = round(run.state.conventions.adjourn_limit * 1000)
    if run.moves.wall_ms < adjourned.since_wall_ms + limit_ms:
        return run.result()
    run.clock, run.adjourned = run.clock.thaw(run.now), None
    _finish(run, Termination.ADJOURN_LIMIT, run.sheet, note="the adjournment ran past its limit")
    return run.result()


def adjourn_deadline_wall_ms(adjourned: Adjournment, adjourn_limit: float) -> int:
    """When an adjournment runs past its limit (wall-clock ms): the server arms its timer for it."""
    return adjourned.since_wall_ms + round(adjourn_limit * 1000)


def _set(run: _Run, proposal: Proposal | None, event: str) -> None:
    run.proposal = proposal
    run.events.append(public(event, proposal=None if proposal is None else proposal.to_json()))


def _seat(seat: int, seats: int) -> None:
    if not 0 <= seat < seats:
        raise TableRefused(ErrorCode.NOT_SEATED, "you do not sit at this table")
