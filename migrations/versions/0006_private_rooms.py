"""private rooms: rooms.private and rooms.spectators, invited players (room_invites) and invite links
(room_links)

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("private", sa.Boolean(), nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column("spectators", sa.Boolean(), nullable=False, server_default=sa.true()))
    op.create_table(
        "room_links",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("token", sa.String(64), nullable=False, unique=True),
        sa.Column("created_by", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("revoked_at", sa.Float(), nullable=True),
        sa.Column("uses", sa.Integer(), nullable=False, server_default="0"),
    )
    op.create_index("ix_room_links_room_id", "room_links", ["room_id"])
    op.create_table(
        "room_invites",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("invited_by", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("link_id", sa.Integer(), sa.ForeignKey("room_links.id"), nullable=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.UniqueConstraint("room_id", "user_id"),
    )
    op.create_index("ix_room_invites_room_id", "room_invites", ["room_id"])
    op.create_index("ix_room_invites_user_id", "room_invites", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_room_invites_user_id", table_name="room_invites")
    op.drop_index("ix_room_invites_room_id", table_name="room_invites")
    op.drop_table("room_invites")
    op.drop_index("ix_room_links_room_id", table_name="room_links")
    op.drop_table("room_links")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("spectators")
        batch.drop_column("private")
