"""table chat (issue 22 §4): rooms.chat_closed_in_deals and rooms.chat_retention_days; chat messages,
a user's ignores, moderators' mutes and reports

Revision ID: 0013_site_chat
Revises: 0012_pulya_life
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_site_chat"
down_revision: str | None = "0012_pulya_life"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(
            sa.Column("chat_closed_in_deals", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("chat_retention_days", sa.Integer(), nullable=False, server_default="30"))
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("user_name", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("text", sa.String(2000), nullable=False),
        sa.Column("preset", sa.String(32), nullable=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("deleted_at", sa.Float(), nullable=True),
        sa.Column("deleted_by", sa.String(64), nullable=True),
    )
    op.create_index("ix_chat_messages_table_at", "chat_messages", ["table_id", "at"])
    op.create_index("ix_chat_messages_room_id", "chat_messages", ["room_id"])
    op.create_index("ix_chat_messages_user_id", "chat_messages", ["user_id"])
    op.create_table(
        "chat_ignores",
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("ignored_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("at", sa.Float(), nullable=False),
    )
    op.create_table(
        "chat_mutes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=True),
        sa.Column("until", sa.Float(), nullable=False),
        sa.Column("by_name", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
    )
    op.create_index("ix_chat_mutes_user_id", "chat_mutes", ["user_id"])
    op.create_table(
        "chat_reports",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("message_id", sa.Integer(), sa.ForeignKey("chat_messages.id"), nullable=False),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("reporter_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("reporter_name", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("context", sa.JSON(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("resolved_at", sa.Float(), nullable=True),
        sa.Column("resolved_by", sa.String(64), nullable=True),
    )
    op.create_index("ix_chat_reports_message_id", "chat_reports", ["message_id"])
    op.create_index("ix_chat_reports_room_id", "chat_reports", ["room_id"])


def downgrade() -> None:
    op.drop_table("chat_reports")
    op.drop_table("chat_mutes")
    op.drop_table("chat_ignores")
    op.drop_table("chat_messages")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("chat_retention_days")
        batch.drop_column("chat_closed_in_deals")
