"""game tables by owner and status: a worker's live tables found without walking every table it has ever run

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # `owner` stays on finished tables; the fence asks every second for the live ones of one owner.
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_index("ix_game_tables_owner")
        batch.create_index("ix_game_tables_owner_status", ["owner", "status"])


def downgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_index("ix_game_tables_owner_status")
        batch.create_index("ix_game_tables_owner", ["owner"])
