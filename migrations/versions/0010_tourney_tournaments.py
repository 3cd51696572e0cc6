"""tournaments (RULES.md §9): tournaments, registrations and teams, rounds with their draw and clock, the
tables a round seats, judges' adjustments and appeals, captains' and judges' calls

Revision ID: 0010_tourney_tournaments
Revises: 0009_hung_rate_buckets
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_tourney_tournaments"
down_revision: str | None = "0009_hung_rate_buckets"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("name", sa.String(128), nullable=False),
        sa.Column("conventions", sa.JSON(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("round_minutes", sa.Float(), nullable=False),
        sa.Column("teams", sa.Boolean(), nullable=False),
        sa.Column("robots", sa.Boolean(), nullable=False),
        sa.Column("robot_level", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_by", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("finished_at", sa.Float(), nullable=True),
    )
    op.create_index("ix_tournaments_room_id", "tournaments", ["room_id"])
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_players",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("user_id", sa.Integer(), sa.ForeignKey("users.id"), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("team", sa.String(64), nullable=True),
        sa.Column("team_role", sa.String(16), nullable=True),
        sa.Column("registered_at", sa.Float(), nullable=False),
        sa.Column("withdrawn_at", sa.Float(), nullable=True),
        sa.UniqueConstraint("tournament_id", "user_id"),
    )
    op.create_index("ix_tournament_players_tournament_id", "tournament_players", ["tournament_id"])
    op.create_index("ix_tournament_players_user_id", "tournament_players", ["user_id"])
    op.create_table(
        "tournament_rounds",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("draw", sa.JSON(), nullable=False),
        sa.Column("clock", sa.JSON(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.UniqueConstraint("tournament_id", "number"),
    )
    op.create_index("ix_tournament_rounds_tournament_id", "tournament_rounds", ["tournament_id"])
    op.create_table(
        "tournament_tables",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("round_id", sa.Integer(), sa.ForeignKey("tournament_rounds.id"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False, unique=True),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("end", sa.JSON(), nullable=True),
        sa.UniqueConstraint("round_id", "number"),
    )
    op.create_index("ix_tournament_tables_round_id", "tournament_tables", ["round_id"])
    op.create_table(
        "tournament_adjustments",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("judge", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(2000), nullable=False),
        sa.Column("round", sa.Integer(), nullable=True),
        sa.Column("at", sa.Float(), nullable=False),
    )
    op.create_index("ix_tournament_adjustments_tournament_id", "tournament_adjustments", ["tournament_id"])
    op.create_table(
        "tournament_appeals",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("adjustment_id", sa.Integer(), sa.ForeignKey("tournament_adjustments.id"), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("reason", sa.String(2000), nullable=False),
        sa.Column("filed_at", sa.Float(), nullable=False),
        sa.Column("verdict", sa.String(32), nullable=True),
        sa.Column("heard_by", sa.String(64), nullable=True),
        sa.Column("heard_at", sa.Float(), nullable=True),
        sa.Column("points", sa.Integer(), nullable=True),
        sa.Column("note", sa.String(2000), nullable=True),
    )
    op.create_index("ix_tournament_appeals_adjustment_id", "tournament_appeals", ["adjustment_id"])
    op.create_table(
        "captain_calls",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("caller", sa.String(64), nullable=False),
        sa.Column("captain", sa.String(64), nullable=False),
        sa.Column("deal_number", sa.Integer(), nullable=False),
        sa.Column("started_ms", sa.BigInteger(), nullable=False),
        sa.Column("suggestion", sa.String(16), nullable=True),
    )
    op.create_index("ix_captain_calls_table_id", "captain_calls", ["table_id"])
    op.create_index("ix_captain_calls_captain", "captain_calls", ["captain"])
    op.create_table(
        "tournament_judge_calls",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.Integer(), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("table_id", sa.Integer(), sa.ForeignKey("game_tables.id"), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("words", sa.String(2000), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("answered_by", sa.String(64), nullable=True),
        sa.Column("answered_at", sa.Float(), nullable=True),
        sa.Column("answer", sa.String(2000), nullable=True),
    )
    op.create_index("ix_tournament_judge_calls_tournament_id", "tournament_judge_calls", ["tournament_id"])


def downgrade() -> None:
    op.drop_index("ix_tournament_judge_calls_tournament_id", table_name="tournament_judge_calls")
    op.drop_table("tournament_judge_calls")
    op.drop_index("ix_captain_calls_captain", table_name="captain_calls")
    op.drop_index("ix_captain_calls_table_id", table_name="captain_calls")
    op.drop_table("captain_calls")
    op.drop_index("ix_tournament_appeals_adjustment_id", table_name="tournament_appeals")
    op.drop_table("tournament_appeals")
    op.drop_index("ix_tournament_adjustments_tournament_id", table_name="tournament_adjustments")
    op.drop_table("tournament_adjustments")
    op.drop_index("ix_tournament_tables_round_id", table_name="tournament_tables")
    op.drop_table("tournament_tables")
    op.drop_index("ix_tournament_rounds_tournament_id", table_name="tournament_rounds")
    op.drop_table("tournament_rounds")
    op.drop_index("ix_tournament_players_user_id", table_name="tournament_players")
    op.drop_index("ix_tournament_players_tournament_id", table_name="tournament_players")
    op.drop_table("tournament_players")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_index("ix_tournaments_room_id", table_name="tournaments")
    op.drop_table("tournaments")
