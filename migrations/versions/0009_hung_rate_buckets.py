"""rate buckets shared by the workers: the login and register limits count across worker processes

Revision ID: 0009_hung_rate_buckets
Revises: 0008
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009_hung_rate_buckets"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rate_buckets",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("stamp", sa.Float(), nullable=False),
        sa.Column("allowed", sa.Boolean(), nullable=False),
    )
    op.create_index("ix_rate_buckets_stamp", "rate_buckets", ["stamp"])


def downgrade() -> None:
    op.drop_index("ix_rate_buckets_stamp", table_name="rate_buckets")
    op.drop_table("rate_buckets")
