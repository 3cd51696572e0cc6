"""worker processes: the slot registry (workers), each table's owner and the tickets already redeemed

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "workers",
        sa.Column("slot", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("boot", sa.String(32), nullable=False),
        sa.Column("address", sa.String(255), nullable=False),
        sa.Column("started_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "used_tickets",
        sa.Column("nonce", sa.String(64), primary_key=True),
        sa.Column("expires_at", sa.Float(), nullable=False, index=True),
    )
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("owner", sa.String(32), nullable=True))
        batch.create_index("ix_game_tables_owner", ["owner"])


def downgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_index("ix_game_tables_owner")
        batch.drop_column("owner")
    op.drop_table("used_tickets")
    op.drop_table("workers")
