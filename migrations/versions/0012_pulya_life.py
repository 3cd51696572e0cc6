"""the pulya's life outside the deal (RULES §7.7): a table's open proposal and adjournment, and every
holder of each seat with the deals each played

Revision ID: 0012_pulya_life
Revises: 0011_ratings_ratings
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_pulya_life"
down_revision: str | None = "0011_ratings_ratings"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("life", sa.JSON(), nullable=True))
    op.create_table(
        "seat_holders",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("first_deal", sa.Integer(), nullable=False),
        sa.Column("last_deal", sa.Integer(), nullable=True),
    )
    op.create_index("ix_seat_holders_table_id", "seat_holders", ["table_id"])
    op.create_index("ix_seat_holders_user_id", "seat_holders", ["user_id"])


def downgrade() -> None:
    op.drop_index("ix_seat_holders_user_id", table_name="seat_holders")
    op.drop_index("ix_seat_holders_table_id", table_name="seat_holders")
    op.drop_table("seat_holders")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("life")
