"""The table actor's features together (a review of the merged actor): a timer's command lost while the
table rereads an uncertain commit neither holds a clock for good nor keeps an adjournment past its limit;
an adjournment's step that cannot be stored is retried at the retry's pace, not at once; a substitute
numbers his actions afresh even when his predecessor's own action handed him the seat; a seat that changes
hands is told to the shared lists once."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from app.engine import legal_actions
from app.engine.conventions import Conventions
from app.server.tables.actor import TableActor
from app.server.tables.commands import Connect, Retry
from app.server.timebase import WallMs
from app.table import Game, TableStatus
from app.table.proposals import Adjournment
from tests.server.helpers import until
from tests.server.test_actor_replies import FakeStore
from tests.server.test_clock_holds import (
    Now,
    Recorder,
    _acted,
    _restarted,
    _settled,
    _started,
    substitute_decreed,
)


async def _away(*_: Any) -> Any:
    raise OSError("the database is away")


def test_a_grace_that_ends_while_the_table_cannot_reread_does_not_hold_the_clock_for_good() -> None:
    async def scenario() -> None:
        store, now = FakeStore(), Now()
        source = TableActor(store, 1, 3, Conventions(), first_dealer=0, now=now)
        source.start()
        await _started(source)
        await _settled(source)
        actor, _mover = await _restarted(source, store, now, grace_ms=300)
        await source.stop()
        try:
            actor._unsure = True  # a commit of unknown outcome within the grace
            reread = store.stored_version
            store.stored_version = _away  # type: ignore[method-assign,assignment]
            await until(lambda: actor._grace is None, "the grace's end was handled")
            assert "reconnect" not in actor._holds
            store.stored_version = reread  # type: ignore[method-assign]
            actor.submit(Retry())
            await until(lambda: actor.game is not None and not actor.game.clock.frozen, "the clock runs")
            assert actor._holds == set() and actor.game is not None and actor.game.clock.running is not None
        finally:
            await actor.stop()

    asyncio.run(scenario())


def _adjourned_long_ago(actor: TableActor, now: Now) -> None:
    game = actor.game
    assert game is not None
    actor.game = replace(
        game, status=TableStatus.ADJOURNED, adjourned=Adjournment(0), clock=game.clock.freeze(now.ms)
    )


def test_an_adjournment_past_its_limit_is_settled_though_its_timer_fired_during_an_outage() -> None:
    async def scenario() -> None:
        store, now = FakeStore(), Now()
        actor = TableActor(store, 1, 3, Conventions(), first_dealer=0, now=now, wall=lambda: WallMs(10**13))
        actor.start()
        try:
            await _started(actor)
            await _settled(actor)
            _adjourned_long_ago(actor, now)
            commit, reread = store.impl, store.stored_version
            store.impl = _away
            store.stored_version = _away  # type: ignore[method-assign,assignment]
            actor._arm_timer()
            await until(lambda: actor._failures > 0, "the settlement's commit failed")
            await until(lambda: actor._unsure or actor._adjourn_timer is not None, "the timer is armed again")
            store.impl, store.stored_version = commit, reread  # type: ignore[method-assign]
            actor.storage_back()
            actor.submit(Retry())
            await until(lambda: actor.status == TableStatus.FINISHED, "the adjournment was settled")
        finally:
            await actor.stop()

    asyncio.run(scenario())


def test_an_adjournments_step_that_cannot_be_stored_is_retried_at_the_retrys_pace() -> None:
    async def scenario() -> None:
        store, now = FakeStore(), Now()
        actor = TableActor(store, 1, 3, Conventions(), first_dealer=0, now=now, wall=lambda: WallMs(10**13))
        actor.start()
        try:
            await _started(actor)
            await _settled(actor)
            _adjourned_long_ago(actor, now)
            commits = 0

            async def refused(*_: Any) -> None:
                nonlocal commits
                commits += 1
                raise OSError("too many writes are waiting")

            store.impl = refused
            actor._arm_timer()
            await until(lambda: commits >= 1 and actor._adjourn_timer is not None, "a failed try, re-armed")
            timer = actor._adjourn_timer
            assert timer is not None
            # Not at once (it was re-armed with no delay, hundreds of commits a second): the backoff.
            assert timer.when() - asyncio.get_running_loop().time() >= 0.2
        finally:
            await actor.stop()

    asyncio.run(scenario())


def test_a_substitute_whose_predecessor_ended_the_deal_numbers_his_actions_afresh() -> None:
    """RULES §7.7: the seat changes hands when the deal ends; when the holder's own action ends it, that
    action's number is his, not the seat's: the substitute's first action (seq 1) is taken, not refused as
    below the holder's last."""

    async def scenario() -> None:
        store, now = FakeStore(), Now()
        actor = TableActor(store, 1, 3, Conventions(), first_dealer=0, now=now)
        actor.start()
        try:
            players = await _playing(actor)
            # Deal 1 is played to its last action but one; the substitution goes to whoever makes the last.
            seqs = dict.fromkeys(range(3), 0)
            decided = False
            while (game := actor.game) is not None and game.state.deal_number == 1:
                seat = game.to_act()
                assert seat is not None
                if not decided and _last_action_of_the_deal(game):
                    await substitute_decreed(actor, seat)
                    decided, leaving = True, seat
                seqs[seat] += 1
                await _acted(actor, players[seat + 1], seqs[seat], legal_actions(game.state)[0].to_json())
            assert decided and actor.seating.users[leaving] == 4
            assert seqs[leaving] > 1 and actor.seating.last_seq[leaving] == 0
            substitute = Recorder(user_id=4)
            actor.submit(Connect(substitute))
            await _settled(actor)
            game = actor.game
            assert game is not None
            # Play deal 2 until the substitute's seat is to move, then it acts with its first number.
            while (seat := game.to_act()) != leaving:
                assert seat is not None
                seqs[seat] += 1
                await _acted(actor, players[seat + 1], seqs[seat], legal_actions(game.state)[0].to_json())
                game = actor.game
                assert game is not None
            await _acted(actor, substitute, 1, legal_actions(game.state)[0].to_json())
            answers = [f for f in substitute.frames if f["type"] in ("ack", "error")]
            assert answers == [{"type": "ack", "seq": 1, "v": actor.version, "duplicate": False}], answers
        finally:
            await actor.stop()

    asyncio.run(scenario())


async def _playing(actor: TableActor) -> dict[int, Recorder]:
    """Users 1-3 seated (the game starts) and connected, by user id."""
    await _started(actor)
    players = {user: Recorder(user_id=user) for user in (1, 2, 3)}
    for conn in players.values():
        actor.submit(Connect(conn))
    await _settled(actor)
    return players


def _last_action_of_the_deal(game: Game) -> bool:
    """Whether the next action ends the deal: the last card still held is played."""
    deal = game.state.deal
    return deal is not None and sum(len(hand) for hand in deal.hands) == 1


def test_a_seat_that_changes_hands_is_told_to_the_listings_and_a_card_is_not() -> None:
    """The room's list of tables (shared among its viewers, `http.shared_answers`) names each seat's holder:
    the table tells the registry when a stored step changed one (here a substitute's, RULES §7.7, when the
    deal ends) and not for every card, which would rebuild the lists at every move."""

    async def scenario() -> None:
        store, now = FakeStore(), Now()
        told: list[int] = []
        actor = TableActor(
            store, 1, 3, Conventions(), first_dealer=0, now=now,
            on_listing=lambda changed: told.append(changed.version),
        )  # fmt: skip
        actor.start()
        try:
            players = await _playing(actor)
            seqs = dict.fromkeys(range(3), 0)
            moves, leaving = 0, None
            while (game := actor.game) is not None and game.state.deal_number == 1:
                seat = game.to_act()
                assert seat is not None
                if leaving is None:
                    await substitute_decreed(actor, seat)
                    leaving = seat
                    assert told == []  # decreed: the seat changes hands when the deal ends
                seqs[seat] += 1
                moves += 1
                await _acted(actor, players[seat + 1], seqs[seat], legal_actions(game.state)[0].to_json())
            assert leaving is not None and actor.seating.users[leaving] == 4 and moves > 10
            assert told == [actor.version]  # once, for the step that ended the deal
        finally:
            await actor.stop()

    asyncio.run(scenario())
