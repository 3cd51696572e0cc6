"""the finished games the ratings have not taken in, found by a partial index (not by reading every game)

Revision ID: 0016_unrated_index
Revises: 0015_caps_shared_counts
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_unrated_index"
down_revision: str | None = "0015_caps_shared_counts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As `app.db.models.UNRATED` at this revision (a migration does not import the models, which move on).
_UNRATED = (
    "status = 'finished' AND in_ratings IS NULL AND settlement IS NOT NULL"
    " AND finish_reason != 'server_fault'"
)


def upgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.add_column(sa.Column("in_ratings", sa.Boolean(), nullable=True))
    op.execute("UPDATE game_tables SET in_ratings = TRUE WHERE id IN (SELECT table_id FROM rated_games)")
    op.create_index(
        "ix_game_tables_unrated",
        "game_tables",
        ["finished_at", "id"],
        sqlite_where=sa.text(_UNRATED),
        postgresql_where=sa.text(_UNRATED),
    )


def downgrade() -> None:
    op.drop_index("ix_game_tables_unrated", table_name="game_tables")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("in_ratings")
