"""initial schema: users, rooms, tables, seats, action log, deals, interrupted deals

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "server_state",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "rooms",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("operator_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("preset", sa.String(64), nullable=False),
        sa.Column("overrides", sa.JSON(), nullable=False),
        sa.Column("conventions", sa.JSON(), nullable=False),
        sa.Column("closed", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "game_tables",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=False, index=True),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("conventions", sa.JSON(), nullable=False),
        sa.Column("first_dealer", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("status", sa.String(32), nullable=False, index=True),
        sa.Column("version", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("started_at", sa.Float(), nullable=True),
        sa.Column("finished_at", sa.Float(), nullable=True),
        sa.Column("finish_reason", sa.String(32), nullable=True),
        sa.Column("clock", sa.JSON(), nullable=True),
        sa.Column("sheet", sa.JSON(), nullable=True),
        sa.Column("settlement", sa.JSON(), nullable=True),
    )
    op.create_table(
        "table_seats",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False, index=True),
        sa.Column("last_client_seq", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_table(
        "actions",
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("action", sa.JSON(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("client_seq", sa.Integer(), nullable=True),
        sa.Column("by_server", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=True),
        sa.Column("sheet", sa.JSON(), nullable=True),
    )
    op.create_table(
        "deals",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False, index=True),
        sa.Column("deal_number", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.UniqueConstraint("table_id", "deal_number"),
    )
    op.create_table(
        "interrupted_deals",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False, index=True),
        sa.Column("deal_number", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(255), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=True),
        sa.Column("adjudication", sa.JSON(), nullable=True),
        sa.Column("at", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    for name in ("interrupted_deals", "deals", "actions", "table_seats", "game_tables", "rooms", "users"):
        op.drop_table(name)
    op.drop_table("server_state")
