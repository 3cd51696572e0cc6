"""administrators' records: the history of awards (every award and revision), judges' sanctions and the audit log

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "awards",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("deal_id", sa.Integer(), sa.ForeignKey("interrupted_deals.id"), nullable=False),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("admin_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("admin_name", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("award", sa.JSON(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("settlement", sa.JSON(), nullable=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.UniqueConstraint("deal_id", "revision"),
    )
    op.create_index("ix_awards_deal_id", "awards", ["deal_id"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("actor_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("actor_name", sa.String(64), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("target", sa.String(128), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
    )
    op.create_index("ix_audit_log_at", "audit_log", ["at"])
    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=True),
        sa.Column("violation", sa.String(64), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("admin_name", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("line", sa.JSON(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("revoked_by", sa.String(64), nullable=True),
        sa.Column("revoked_at", sa.Float(), nullable=True),
        sa.Column("revoke_reason", sa.String(500), nullable=True),
    )
    op.create_index("ix_sanctions_table_id", "sanctions", ["table_id"])


def downgrade() -> None:
    op.drop_index("ix_sanctions_table_id", table_name="sanctions")
    op.drop_table("sanctions")
    op.drop_index("ix_audit_log_at", table_name="audit_log")
    op.drop_table("audit_log")
    op.drop_index("ix_awards_deal_id", table_name="awards")
    op.drop_table("awards")
