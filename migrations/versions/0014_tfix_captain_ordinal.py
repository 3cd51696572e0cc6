"""captain's calls numbered per seat of a table: a unique (table_id, seat, ordinal) makes the limit of 3
calls in a pulya (RULES.md §9.6) hold under concurrent calls

Revision ID: 0014_tfix_captain_ordinal
Revises: 0013_site_chat
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_tfix_captain_ordinal"
down_revision: str | None = "0013_site_chat"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("captain_calls") as batch:
        batch.add_column(sa.Column("ordinal", sa.Integer(), nullable=True))
    # The calls already made are numbered in their order at each seat of each table.
    op.execute(
        "UPDATE captain_calls SET ordinal = (SELECT COUNT(*) FROM captain_calls AS earlier"
        " WHERE earlier.table_id = captain_calls.table_id AND earlier.seat = captain_calls.seat"
        " AND earlier.id <= captain_calls.id)"
    )
    with op.batch_alter_table("captain_calls") as batch:
        batch.alter_column("ordinal", existing_type=sa.Integer(), nullable=False)
    op.create_index(
        "uq_captain_calls_table_seat_ordinal", "captain_calls", ["table_id", "seat", "ordinal"], unique=True
    )


def downgrade() -> None:
    op.drop_index("uq_captain_calls_table_seat_ordinal", table_name="captain_calls")
    with op.batch_alter_table("captain_calls") as batch:
        batch.drop_column("ordinal")
