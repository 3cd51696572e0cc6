"""ratings: per room and site-wide ladders, their history, the games rated, the rooms' rating settings;
the solver's analyses of finished deals

Revision ID: 0011_ratings_ratings
Revises: 0010_tourney_tournaments
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_ratings_ratings"
down_revision: str | None = "0010_tourney_tournaments"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "room_settings",
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), primary_key=True, autoincrement=False),
        sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.true()),
        sa.Column("min_rating", sa.Integer(), nullable=True),
        sa.Column("max_rating", sa.Integer(), nullable=True),
        sa.Column("broadcast", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "ratings",
        sa.Column("ladder", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), primary_key=True, autoincrement=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("robot", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("updated_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_ratings_ladder_robot", "ratings", ["ladder", "robot"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("ladder", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
    )
    op.create_index("ix_rating_history_user_ladder", "rating_history", ["user_id", "ladder"])
    op.create_index("ix_rating_history_table_id", "rating_history", ["table_id"])
    op.create_table(
        "rated_games",
        sa.Column(
            "table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), primary_key=True, autoincrement=False
        ),
        sa.Column("finished_at", sa.Float(), nullable=False),
        sa.Column("counted", sa.Boolean(), nullable=False),
        sa.Column("rated_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "deal_analyses",
        sa.Column("deal_id", sa.Integer(), sa.ForeignKey("deals.id"), primary_key=True, autoincrement=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("analysis", sa.JSON(), nullable=False),
        sa.Column("node_budget", sa.Integer(), nullable=False),
        sa.Column("solver", sa.String(16), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("deal_analyses")
    op.drop_table("rated_games")
    op.drop_index("ix_rating_history_table_id", "rating_history")
    op.drop_index("ix_rating_history_user_ladder", "rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_ladder_robot", "ratings")
    op.drop_table("ratings")
    op.drop_table("room_settings")
