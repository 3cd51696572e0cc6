"""counts the workers share: a user's sockets at each worker, and the one sit of a user under way

Revision ID: 0015_caps_shared_counts
Revises: 0014_tfix_captain_ordinal
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_caps_shared_counts"
down_revision: str | None = "0014_tfix_captain_ordinal"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "user_sockets",
        sa.Column("user_id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("boot", sa.String(32), primary_key=True),
        sa.Column("sockets", sa.Integer(), nullable=False),
    )
    op.create_table(
        "sit_leases",
        sa.Column("user_id", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("until", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("sit_leases")
    op.drop_table("user_sockets")
