"""The tournament routes' guards, called in process against a real database (no server process): a judge who
plays does not judge, an appellant does not hear his own appeal (RULES.md §9.5); a private room's tournament
is its own and a room's rating limits hold for a player registering himself; a round is refused on several
workers, and a round whose seating fails is undone so that it can be drawn again."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, cast

import orjson
import pytest
from fastapi import Response
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.auth.tokens import TokenClaims
from app.db.engine import make_engine, make_sessionmaker
from app.db.models import (
    CaptainCallRecord,
    GameTable,
    Room,
    RoomInvite,
    RoomSettings,
    Tournament,
    TournamentAdjustment,
    TournamentPlayer,
    TournamentRound,
    TournamentTable,
    User,
)
from app.engine.conventions import Conventions
from app.protocol.codes import ErrorCode
from app.server.context import ServerContext
from app.server.errors import ApiError
from app.server.http.routes import captains
from app.server.http.routes import tournaments as routes
from app.server.http.shared_answers import SharedAnswers
from app.server.tables.commands import SeatError
from app.tournament import tournament_conventions
from app.tournament.captain import CALLS_PER_PULYA, CaptainError
from app.tournament.judging import Verdict
from tests.server import test_group_commit as harness

database_url = harness.database_url


@dataclass
class World:
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]
    users: dict[str, User]
    room: int
    tournament: int


async def _user(session: AsyncSession, name: str, role: str) -> User:
    user = User(name=name, name_key=name, password_hash="-", role=role, created_at=time.time())
    session.add(user)
    await session.flush()
    return user


@pytest.fixture
async def world(database_url: str) -> AsyncIterator[World]:
    """A private room (invited: p1…p6, root) of operator ``op``, and a tournament of one round there."""
    engine = make_engine(database_url)
    sessions = make_sessionmaker(engine)
    async with sessions() as session:
        users = {"op": await _user(session, "op", "operator"), "root": await _user(session, "root", "admin")}
        for name in ("p1", "p2", "p3", "p4", "p5", "p6", "stranger"):
            users[name] = await _user(session, name, "player")
        room = Room(name="club", operator_id=users["op"].id, preset="p", overrides={}, conventions={},
                    created_at=0.0, private=True, spectators=False)  # fmt: skip
        session.add(room)
        await session.flush()
        for name in ("p1", "p2", "p3", "p4", "p5", "p6", "root"):
            session.add(
                RoomInvite(room_id=room.id, user_id=users[name].id, invited_by=users["op"].id, at=0.0)
            )
        played = tournament_conventions(Conventions(), {})
        tour = Tournament(room_id=room.id, name="cup", conventions=played.model_dump(mode="json"), rounds=1,
                          round_minutes=60.0, status="registration", created_by=users["op"].id,
                          created_at=0.0)  # fmt: skip
        session.add(tour)
        await session.commit()
        world = World(engine, sessions, users, room.id, tour.id)
    try:
        yield world
    finally:
        await engine.dispose()


async def _call(world: World, route: Any, *args: Any, user: str, **kwargs: Any) -> Any:
    """The route as FastAPI calls it for ``user``: with his row and a session, or (the reads every viewer of
    a page asks) his token's claims; a context that shares no answer unless the test gives one. A read's
    encoded answer comes back decoded."""
    params = inspect.signature(route).parameters
    if "ctx" in params and "ctx" not in kwargs:
        kwargs["ctx"] = SimpleNamespace(
            engine=world.engine, sessions=world.sessions, answers=SharedAnswers(0), cluster=None, tables={}
        )
    if "claims" in params:
        answer = await route(*args, claims=TokenClaims(world.users[user].id, time.time() + 60, 0), **kwargs)
        return orjson.loads(answer.body) if isinstance(answer, Response) else answer
    async with world.sessions() as session:
        return await route(
            *args, user=await session.get(User, world.users[user].id), session=session, **kwargs
        )


async def _refused(world: World, route: Any, *args: Any, user: str, **kwargs: Any) -> ErrorCode:
    with pytest.raises(ApiError) as refused:
        await _call(world, route, *args, user=user, **kwargs)
    return refused.value.code


async def _register(world: World, *names: str) -> None:
    for name in names:
        await _call(world, routes.register, world.tournament, routes.PlayerIn(player=None), user=name)


async def test_a_private_rooms_tournament_is_hidden_and_closed_to_the_uninvited(world: World) -> None:
    assert await _call(world, routes.list_tournaments, user="stranger") == []
    assert [t["id"] for t in await _call(world, routes.list_tournaments, user="p1")] == [world.tournament]
    assert (
        await _refused(world, routes.get_tournament, world.tournament, user="stranger")
        == ErrorCode.PRIVATE_ROOM
    )
    assert (
        await _refused(world, routes.get_standings, world.tournament, user="stranger")
        == ErrorCode.PRIVATE_ROOM
    )
    own = routes.PlayerIn(player=None)
    assert (
        await _refused(world, routes.register, world.tournament, own, user="stranger")
        == ErrorCode.PRIVATE_ROOM
    )
    # The organiser cannot register an uninvited player either: privacy is not his to override.
    other = routes.PlayerIn(player="stranger")
    assert await _refused(world, routes.register, world.tournament, other, user="op") == ErrorCode.NOT_INVITED
    await _register(world, "p1")
    info = await _call(world, routes.get_tournament, world.tournament, user="p1")
    assert [p["player"] for p in info["players"]] == ["p1"]


async def test_the_rooms_rating_limit_holds_for_self_registration_and_the_organiser_may_override_it(
    world: World,
) -> None:
    async with world.sessions() as session:
        session.add(RoomSettings(room_id=world.room, min_rating=1800))  # above everyone's starting rating
        await session.commit()
    own = routes.PlayerIn(player=None)
    code = await _refused(world, routes.register, world.tournament, own, user="p1")
    assert code == ErrorCode.RATING_OUT_OF_RANGE
    added = await _call(world, routes.register, world.tournament, routes.PlayerIn(player="p1"), user="op")
    assert added == {"player": "p1", "registered": True}


async def test_a_judge_who_plays_does_not_judge_and_an_appellant_does_not_hear_his_appeal(
    world: World,
) -> None:
    await _register(world, "p1", "root")
    penalty = routes.AdjustmentIn(player="p1", points=-100, reason="argued with the judge")
    code = await _refused(world, routes.add_adjustment, world.tournament, penalty, user="root")
    assert code == ErrorCode.INVALID_JUDGING  # root plays in it
    on_root = routes.AdjustmentIn(player="root", points=-100, reason="argued with the judge")
    decision = await _call(world, routes.add_adjustment, world.tournament, on_root, user="op")
    appeal = await _call(
        world,
        routes.appeal,
        world.tournament,
        decision["id"],
        routes.AppealIn(reason="I did not"),
        user="root",
    )
    async with world.sessions() as session:
        tour = await session.get(Tournament, world.tournament)
        assert tour is not None
        tour.status = routes.FINISHED
        await session.commit()
    hearing = routes.HearingIn(verdict=Verdict.DECISION_CHANGED, points=0, note="mine")
    assert await _refused(world, routes.hear, appeal["id"], hearing, user="root") == ErrorCode.INVALID_JUDGING
    async with world.sessions() as session:
        stored = await session.get(TournamentAdjustment, decision["id"])
        assert stored is not None and stored.points == -100  # nothing changed


async def test_a_round_is_refused_on_several_workers(world: World) -> None:
    await _register(world, "p1", "p2", "p3")
    ctx = cast(ServerContext, SimpleNamespace(cluster=object(), tables={}, answers=SharedAnswers(0)))
    code = await _refused(world, routes.start_round, world.tournament, user="op", ctx=ctx)
    assert code == ErrorCode.TOURNAMENT_ONE_WORKER
    async with world.sessions() as session:
        assert await session.scalar(select(func.count()).select_from(TournamentRound)) == 0


async def test_a_round_whose_seating_fails_is_undone_and_can_be_drawn_again(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    await _register(world, "p1", "p2", "p3", "p4", "p5", "p6")  # two tables of 3
    seated: list[int] = []

    async def seat_fails_at_the_second(ctx: Any, table_id: int, *args: Any) -> None:
        if seated:
            raise SeatError(ErrorCode.SEAT_TAKEN, "seat 0 is taken")
        seated.append(table_id)

    monkeypatch.setattr(routes, "_seat", seat_fails_at_the_second)
    ctx = cast(ServerContext, SimpleNamespace(cluster=None, tables={}, answers=SharedAnswers(0)))
    code = await _refused(world, routes.start_round, world.tournament, user="op", ctx=ctx)
    assert code == ErrorCode.ROUND_NOT_SEATED
    async with world.sessions() as session:
        assert await session.scalar(select(func.count()).select_from(TournamentRound)) == 0
        assert await session.scalar(select(func.count()).select_from(TournamentTable)) == 0
        statuses = (await session.execute(select(GameTable.status, GameTable.finish_reason))).all()
        assert [tuple(s) for s in statuses] == [("finished", "round_void")] * 2  # nobody waits there
        tour = await session.get(Tournament, world.tournament)
        assert tour is not None and tour.status == "registration"

    async def seat(ctx: Any, table_id: int, *args: Any) -> None:
        return None

    monkeypatch.setattr(routes, "_seat", seat)
    drawn = await _call(world, routes.start_round, world.tournament, user="op", ctx=ctx)
    assert drawn["number"] == 1 and drawn["status"] == "playing" and len(drawn["tables"]) == 2


async def test_two_captain_calls_racing_for_the_third_do_not_pass_the_limit(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with world.sessions() as session:
        tour = await session.get(Tournament, world.tournament)
        assert tour is not None
        tour.teams, tour.status = True, "running"
        for name, role in (("p1", None), ("p2", "captain")):
            player = TournamentPlayer(tournament_id=tour.id, user_id=world.users[name].id, name=name,
                                      team="A", team_role=role, registered_at=0.0)  # fmt: skip
            session.add(player)
        rnd = TournamentRound(tournament_id=tour.id, number=1, seed=1, draw={}, clock=None, status="playing")
        table = GameTable(room_id=world.room, seats=3, conventions={}, status="playing", created_at=0.0)
        session.add_all([rnd, table])
        await session.flush()
        session.add(TournamentTable(round_id=rnd.id, number=1, table_id=table.id, players=["p1", "p3", "p4"]))
        for ordinal in (1, 2):
            call = CaptainCallRecord(table_id=table.id, seat=0, ordinal=ordinal, caller="p1", captain="p2",
                                     deal_number=1, started_ms=0)  # fmt: skip
            session.add(call)
        await session.commit()
        table_id = table.id
    both_counted = asyncio.Barrier(2)

    async def state_after_both_counted(ctx: Any, table_id: int) -> Any:
        await both_counted.wait()  # each call has counted 2 before either stores its own
        return SimpleNamespace(deal_number=3)

    def check_count_only(state: Any, seat: int, calls: int, *, team_event: bool) -> None:
        if calls >= CALLS_PER_PULYA:
            raise CaptainError("at most 3")

    monkeypatch.setattr(captains, "_state", state_after_both_counted)
    monkeypatch.setattr(captains, "check_call", check_count_only)
    ctx = cast(ServerContext, SimpleNamespace(cluster=None, tables={}, answers=SharedAnswers(0)))
    results = await asyncio.gather(
        _call(world, captains.call_captain, table_id, user="p1", ctx=ctx),
        _call(world, captains.call_captain, table_id, user="p1", ctx=ctx),
        return_exceptions=True,
    )
    made = [r for r in results if isinstance(r, dict)]
    refused = [r for r in results if isinstance(r, ApiError)]
    assert len(made) == 1 and made[0]["calls_left"] == 0
    assert len(refused) == 1 and refused[0].code == ErrorCode.INVALID_JUDGING
    async with world.sessions() as session:
        calls = await session.scalar(select(func.count()).select_from(CaptainCallRecord))
        assert calls == CALLS_PER_PULYA
