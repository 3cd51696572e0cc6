"""The schema. Alembic migrations in ``migrations/`` create it; these classes mirror them.

Times are wall-clock epoch seconds (floats) so SQLite and PostgreSQL store them identically.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


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

    # A worker's live tables (`owner` stays on finished ones): server.cluster.ownership.fence every second.
    __table_args__ = (Index("ix_game_tables_owner_status", "owner", "status"),)


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
