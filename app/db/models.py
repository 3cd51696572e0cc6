"""The schema. Alembic migrations in ``migrations/`` create it; these classes mirror them.

Times are wall-clock epoch seconds (floats) so SQLite and PostgreSQL store them identically.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# The settled games the ratings have not taken in (`GameTable.in_ratings`; a server fault never counts:
# 'server_fault' is `Termination.FAULT`'s value): the predicate of their partial index, which a query
# names as this same text for the database to use it. A game the ratings will never take in is not in it.
UNRATED = (
    "status = 'finished' AND in_ratings IS NULL AND settlement IS NOT NULL"
    " AND finish_reason != 'server_fault'"
)


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {dict[str, Any]: JSON, list[Any]: JSON}


class ServerState(Base):
    """Small key/value facts about the server itself (the token secret is never kept here)."""

    __tablename__ = "server_state"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    # app.auth.users.name_key(name): names are unique case-insensitively after NFKC.
    name_key: Mapped[str] = mapped_column(String(128), unique=True, index=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[float] = mapped_column(Float)
    # Tokens carry the generation they were issued in; logout or an admin's revocation increments it,
    # so every older token is refused at once.
    token_generation: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    disabled: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class Room(Base):
    __tablename__ = "rooms"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(128))
    operator_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    preset: Mapped[str] = mapped_column(String(64))
    overrides: Mapped[dict[str, Any]] = mapped_column(JSON)
    conventions: Mapped[dict[str, Any]] = mapped_column(JSON)
    closed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[float] = mapped_column(Float)
    # A private room seats only invited players (server.accounts.privacy); ``spectators`` says whether anyone
    # else may watch its tables.
    private: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    spectators: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    # Table chat (issue 22 §4): the players' channel closed during deals (a room's choice; tournament
    # rooms always), and how many days messages are kept.
    chat_closed_in_deals: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    chat_retention_days: Mapped[int] = mapped_column(Integer, default=30, server_default="30")


class RoomInvite(Base):
    """A player invited to a private room: by name by its operator, or through an invite link they opened
    (``link_id``). Uninviting deletes the row (the audit log keeps the record)."""

    __tablename__ = "room_invites"
    __table_args__ = (UniqueConstraint("room_id", "user_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    invited_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    link_id: Mapped[int | None] = mapped_column(ForeignKey("room_links.id"), nullable=True)
    at: Mapped[float] = mapped_column(Float)


class RoomLink(Base):
    """An invite link to a private room: a random token in a URL of the site; revoked, it grants no more
    invites (those it granted stay until the operator withdraws them)."""

    __tablename__ = "room_links"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), index=True)
    token: Mapped[str] = mapped_column(String(64), unique=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[float] = mapped_column(Float)
    revoked_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    uses: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class GameTable(Base):
    """A table and the pulya played at it (one game per table)."""

    __tablename__ = "game_tables"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), index=True)
    seats: Mapped[int] = mapped_column(Integer)
    conventions: Mapped[dict[str, Any]] = mapped_column(JSON)
    first_dealer: Mapped[int] = mapped_column(Integer, default=0)
    # waiting | playing | finished | awaiting_adjudication
    status: Mapped[str] = mapped_column(String(32), index=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[float] = mapped_column(Float)
    started_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    finish_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    sheet: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    settlement: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # The worker process (its boot id) that runs the table when there are several (server.cluster.ownership).
    owner: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # RULES §7.7: the open (or agreed) proposal and the adjournment, `Game.life_json` (None: neither).
    life: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # True once the ratings took the settled game in (it has its `RatedGame`), None before: the index below
    # holds only the finished games not taken in, so a pass finds them without reading every game ever
    # finished (the pass runs every second; at 100,000 finished games that read took 0.2 s).
    in_ratings: Mapped[bool | None] = mapped_column(Boolean, nullable=True)

    # A worker's live tables (`owner` stays on finished ones): server.cluster.ownership.fence every second.
    __table_args__ = (
        Index("ix_game_tables_owner_status", "owner", "status"),
        Index(
            "ix_game_tables_unrated",
            "finished_at",
            "id",
            sqlite_where=text(UNRATED),
            postgresql_where=text(UNRATED),
        ),
    )


class SeatHolder(Base):
    """One holder of a seat (RULES §7.7): who held it from ``first_deal`` to ``last_deal`` (None: holds it
    still). A substitution closes the leaver's row and opens the substitute's."""

    __tablename__ = "seat_holders"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    first_deal: Mapped[int] = mapped_column(Integer)
    last_deal: Mapped[int | None] = mapped_column(Integer, nullable=True)


class TableSeat(Base):
    __tablename__ = "table_seats"
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    # The last client sequence number applied for this seat's player (a retried command is applied once).
    last_client_seq: Mapped[int] = mapped_column(Integer, default=0)


class ActionRecord(Base):
    """One accepted engine action; the table's state is `replay` of these in ``seq`` order.

    ``clock`` and ``sheet`` are the clocks and the score sheet right after the action.
    """

    __tablename__ = "actions"
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    user_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    client_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    by_server: Mapped[bool] = mapped_column(Boolean, default=False)
    at: Mapped[float] = mapped_column(Float)
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    sheet: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)


class DealRecord(Base):
    """A finished deal: its result for the score sheet and its full record (all hands, every card)."""

    __tablename__ = "deals"
    __table_args__ = (UniqueConstraint("table_id", "deal_number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), index=True)
    deal_number: Mapped[int] = mapped_column(Integer)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    at: Mapped[float] = mapped_column(Float)


class InterruptedDeal(Base):
    """A deal the robot could not finish (RULES.md §8.4): kept for an administrator to adjudicate."""

    __tablename__ = "interrupted_deals"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), index=True)
    deal_number: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(255))
    record: Mapped[dict[str, Any]] = mapped_column(JSON)
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    adjudication: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    at: Mapped[float] = mapped_column(Float)


class Award(Base):
    """One administrator's award of an interrupted deal; a revision is a new row with the next
    ``revision``, and the sheet follows the latest (issue 11 §2)."""

    __tablename__ = "awards"
    __table_args__ = (UniqueConstraint("deal_id", "revision"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    deal_id: Mapped[int] = mapped_column(ForeignKey("interrupted_deals.id"), index=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    revision: Mapped[int] = mapped_column(Integer)
    admin_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    admin_name: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(String(500))
    award: Mapped[dict[str, Any]] = mapped_column(JSON)  # what the admin asked for
    result: Mapped[dict[str, Any]] = mapped_column(JSON)  # the deal result written
    settlement: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    at: Mapped[float] = mapped_column(Float)


class AuditEntry(Base):
    """An administrator's change to an account (role, disabled, password) or to the archive."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    at: Mapped[float] = mapped_column(Float, index=True)
    actor_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    actor_name: Mapped[str] = mapped_column(String(64))
    action: Mapped[str] = mapped_column(String(64))
    target: Mapped[str] = mapped_column(String(128))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)


class Sanction(Base):
    """A judge's sanction written into a game's sheet (RULES §11); revoked only by a recorded entry (a
    sheet line undoing it, and ``revoked_*`` here)."""

    __tablename__ = "sanctions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), nullable=True)
    violation: Mapped[str] = mapped_column(String(64))
    role: Mapped[str] = mapped_column(String(16))
    params: Mapped[dict[str, Any]] = mapped_column(JSON)  # deal, damage, recipient as asked
    admin_name: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(String(500))
    line: Mapped[dict[str, Any]] = mapped_column(JSON)  # the sheet's history line it wrote
    at: Mapped[float] = mapped_column(Float)
    revoked_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    revoked_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    revoke_reason: Mapped[str | None] = mapped_column(String(500), nullable=True)


class WorkerSlot(Base):
    """One worker process per slot (``serve --workers N``): the process now in it and its own address."""

    __tablename__ = "workers"
    slot: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    boot: Mapped[str] = mapped_column(String(32))
    address: Mapped[str] = mapped_column(String(255))  # host:port of its own listener
    started_at: Mapped[float] = mapped_column(Float)


class UsedTicket(Base):
    """A signed websocket ticket already redeemed (by any worker); kept until it would have expired."""

    __tablename__ = "used_tickets"
    nonce: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[float] = mapped_column(Float, index=True)


class RateBucket(Base):
    """A token bucket of a rate limit shared by the workers (``serve --workers N``): the login and register
    limits per address and per name count the attempts made at any worker."""

    __tablename__ = "rate_buckets"
    # SHA-256 of the limit's name and its key: the database keeps no client address or tried name.
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    tokens: Mapped[float] = mapped_column(Float)
    stamp: Mapped[float] = mapped_column(Float, index=True)  # wall seconds of the last attempt
    allowed: Mapped[bool] = mapped_column(Boolean)  # whether the last attempt was let through


class UserSockets(Base):
    """Several workers: how many table sockets of a user each worker holds (``boot``: the worker's process),
    so the per-user socket cap counts every worker's (a process no slot names any more is not counted, and
    its rows are deleted by the workers' housekeeping)."""

    __tablename__ = "user_sockets"
    user_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    boot: Mapped[str] = mapped_column(String(32), primary_key=True)
    sockets: Mapped[int] = mapped_column(Integer)


class SitLease(Base):
    """Several workers: the one sit of a user under way (a token of that sit in ``holder``, until ``until``,
    wall seconds), so that two sits at two workers cannot both pass the waiting-seat cap (issue 25 §1.5)."""

    __tablename__ = "sit_leases"
    user_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    holder: Mapped[str] = mapped_column(String(64))
    until: Mapped[float] = mapped_column(Float)


class Tournament(Base):
    """A tournament run by a room's operator (RULES.md §9.1); ``status``: `app.server.tournaments`."""

    __tablename__ = "tournaments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), index=True)
    name: Mapped[str] = mapped_column(String(128))
    conventions: Mapped[dict[str, Any]] = mapped_column(JSON)  # the room's, with the tournament's overrides
    rounds: Mapped[int] = mapped_column(Integer)
    round_minutes: Mapped[float] = mapped_column(Float)
    teams: Mapped[bool] = mapped_column(Boolean, default=False)
    robots: Mapped[bool] = mapped_column(Boolean, default=False)  # robots may fill a seat (§9.2)
    robot_level: Mapped[str] = mapped_column(String(16), default="normal")
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_by: Mapped[int] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class TournamentPlayer(Base):
    """A registration; ``withdrawn_at`` set when the player left (he then plays no further round)."""

    __tablename__ = "tournament_players"
    __table_args__ = (UniqueConstraint("tournament_id", "user_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    name: Mapped[str] = mapped_column(String(64))
    team: Mapped[str | None] = mapped_column(String(64), nullable=True)
    team_role: Mapped[str | None] = mapped_column(String(16), nullable=True)  # "captain" or "deputy"
    registered_at: Mapped[float] = mapped_column(Float)
    withdrawn_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class TournamentRound(Base):
    """A round: its draw (with the seed it is drawn from) and its durable clock (§9.2, §9.3)."""

    __tablename__ = "tournament_rounds"
    __table_args__ = (UniqueConstraint("tournament_id", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    draw: Mapped[dict[str, Any]] = mapped_column(JSON)  # `RoundDraw.to_json`
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # `RoundClock.to_json`
    status: Mapped[str] = mapped_column(String(16))  # drawn, playing, finished


class TournamentTable(Base):
    """A game table seated by a round's draw."""

    __tablename__ = "tournament_tables"
    __table_args__ = (UniqueConstraint("round_id", "number"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("tournament_rounds.id"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), unique=True)
    players: Mapped[list[Any]] = mapped_column(JSON)  # by seat: the player's name, None a robot seat
    end: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)  # `TableEnd.to_json`


class TournamentAdjustment(Base):
    """A judge's tournament-point decision (§9.5)."""

    __tablename__ = "tournament_adjustments"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    player: Mapped[str] = mapped_column(String(64))
    points: Mapped[int] = mapped_column(Integer)
    judge: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(String(2000))
    round: Mapped[int | None] = mapped_column(Integer, nullable=True)
    at: Mapped[float] = mapped_column(Float)


class TournamentAppeal(Base):
    """A player's appeal against an adjustment, and its hearing (§9.5)."""

    __tablename__ = "tournament_appeals"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    adjustment_id: Mapped[int] = mapped_column(ForeignKey("tournament_adjustments.id"), index=True)
    player: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(String(2000))
    filed_at: Mapped[float] = mapped_column(Float)
    verdict: Mapped[str | None] = mapped_column(String(32), nullable=True)
    heard_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    heard_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    points: Mapped[int | None] = mapped_column(Integer, nullable=True)
    note: Mapped[str | None] = mapped_column(String(2000), nullable=True)


class CaptainCallRecord(Base):
    """A player's call of his captain in the auction (RULES.md §9.6), and the one suggestion sent."""

    __tablename__ = "captain_calls"
    # One row per call number at a seat: two calls racing for the same number cannot both be stored, so the
    # limit of 3 in a pulya holds without a lock (SQLite and PostgreSQL alike).
    __table_args__ = (
        Index("uq_captain_calls_table_seat_ordinal", "table_id", "seat", "ordinal", unique=True),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    ordinal: Mapped[int] = mapped_column(Integer)  # 1, 2, 3: the call's number at this seat of this table
    caller: Mapped[str] = mapped_column(String(64))
    captain: Mapped[str] = mapped_column(String(64), index=True)
    deal_number: Mapped[int] = mapped_column(Integer)
    started_ms: Mapped[int] = mapped_column(BigInteger)
    suggestion: Mapped[str | None] = mapped_column(String(16), nullable=True)


class TournamentJudgeCall(Base):
    """A player's call of the judge at a tournament table, with his words (RULES.md §9.5)."""

    __tablename__ = "tournament_judge_calls"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), index=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    player: Mapped[str] = mapped_column(String(64))
    words: Mapped[str] = mapped_column(String(2000))
    at: Mapped[float] = mapped_column(Float)
    answered_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
    answered_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    answer: Mapped[str | None] = mapped_column(String(2000), nullable=True)


class RoomSettings(Base):
    """A room's settings of issue 21: whether its games are rated (a practice room's are not), the rating a
    player needs to sit at its tables (the room ladder's shown rating; None: no limit), and ``broadcast``:
    spectators see every hand one deal behind (`app.server.http.routes.broadcast`)."""

    __tablename__ = "room_settings"
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), primary_key=True, autoincrement=False)
    rated: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    min_rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    max_rating: Mapped[int | None] = mapped_column(Integer, nullable=True)
    broadcast: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class PlayerRating(Base):
    """A player's rating on one ladder: ``ladder`` 0 is the site's, any other the id of a room (its own
    ladder). ``robot``: a robot account, rated but left off the leaderboards (`app.ratings`)."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_ladder_robot", "ladder", "robot"),)
    ladder: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True, autoincrement=False)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    robot: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    updated_at: Mapped[float] = mapped_column(Float)


class RatingChange(Base):
    """One player's rating after one rated pulya on one ladder: the player page's history chart."""

    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_user_ladder", "user_id", "ladder"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    ladder: Mapped[int] = mapped_column(Integer)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), index=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    at: Mapped[float] = mapped_column(Float)  # the game's finished_at


class RatedGame(Base):
    """A settled game the ratings have taken in (``counted``: whether it moved any rating; a practice
    room's or an empty game's did not). Games are rated in (finished_at, table_id) order."""

    __tablename__ = "rated_games"
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"), primary_key=True, autoincrement=False)
    finished_at: Mapped[float] = mapped_column(Float)
    counted: Mapped[bool] = mapped_column(Boolean)
    rated_at: Mapped[float] = mapped_column(Float)


class DealAnalysis(Base):
    """The solver's analysis of one finished deal (issue 21 §2), computed once and kept: ``analysis`` is
    `app.analysis.DealAnalysis.to_json` in solver seats, ``seats`` the table seat of each solver seat."""

    __tablename__ = "deal_analyses"
    deal_id: Mapped[int] = mapped_column(ForeignKey("deals.id"), primary_key=True, autoincrement=False)
    seats: Mapped[list[Any]] = mapped_column(JSON)
    analysis: Mapped[dict[str, Any]] = mapped_column(JSON)
    node_budget: Mapped[int] = mapped_column(Integer)
    solver: Mapped[str] = mapped_column(String(16))
    at: Mapped[float] = mapped_column(Float)


class ChatMessage(Base):
    """A table chat message (issue 22 §4): plain text or a preset's key; ``channel`` is players or
    spectators. A moderator's removal keeps the row (``deleted_*``) for the reports that cite it."""

    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_table_at", "table_id", "at"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("game_tables.id"))
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), index=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    user_name: Mapped[str] = mapped_column(String(64))
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    channel: Mapped[str] = mapped_column(String(16))
    text: Mapped[str] = mapped_column(String(2000))
    preset: Mapped[str | None] = mapped_column(String(32), nullable=True)
    at: Mapped[float] = mapped_column(Float)
    deleted_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    deleted_by: Mapped[str | None] = mapped_column(String(64), nullable=True)


class ChatIgnore(Base):
    """A user who no longer sees another's messages (a mute for oneself)."""

    __tablename__ = "chat_ignores"
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    ignored_id: Mapped[int] = mapped_column(ForeignKey("users.id"), primary_key=True)
    at: Mapped[float] = mapped_column(Float)


class ChatMute(Base):
    """A moderator's mute: the user may not write in the room (``room_id``) or anywhere (None) until
    ``until``; lifted early by setting ``until`` to the lifting time."""

    __tablename__ = "chat_mutes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    room_id: Mapped[int | None] = mapped_column(ForeignKey("rooms.id"), nullable=True)
    until: Mapped[float] = mapped_column(Float)
    by_name: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(String(500))
    at: Mapped[float] = mapped_column(Float)


class ChatReport(Base):
    """A player's report of a message, with the context as it stood (the messages around it)."""

    __tablename__ = "chat_reports"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[int] = mapped_column(ForeignKey("chat_messages.id"), index=True)
    room_id: Mapped[int] = mapped_column(ForeignKey("rooms.id"), index=True)
    reporter_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    reporter_name: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(String(500))
    context: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    at: Mapped[float] = mapped_column(Float)
    resolved_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    resolved_by: Mapped[str | None] = mapped_column(String(64), nullable=True)
