"""token revocation and disabled accounts; the token secret leaves the database

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("token_generation", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("disabled", sa.Boolean(), nullable=False, server_default=sa.false()))
    # The secret now lives in PREFERANS_TOKEN_SECRET or a file (PREFERANS_TOKEN_SECRET_FILE), never in the
    # database: tokens signed with the old one stop working and their users log in again.
    op.execute("DELETE FROM server_state WHERE key = 'token_secret'")


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("disabled")
        batch.drop_column("token_generation")
