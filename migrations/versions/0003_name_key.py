"""names unique case-insensitively after Unicode NFKC (users.name_key)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

import unicodedata
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _key(name: str) -> str:  # frozen copy of app.auth.users.name_key
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("name_key", sa.String(128), nullable=True))
    bind = op.get_bind()
    seen: set[str] = set()
    for user_id, name in bind.execute(sa.text("SELECT id, name FROM users ORDER BY id")).all():
        key = _key(name)
        if key in seen:  # an older look-alike keeps its name; only the first one is found by name
            key = f"{key}#{user_id}"
        seen.add(key)
        bind.execute(sa.text("UPDATE users SET name_key = :key WHERE id = :id"), {"key": key, "id": user_id})
    with op.batch_alter_table("users") as batch:
        batch.alter_column("name_key", existing_type=sa.String(128), nullable=False)
        batch.create_index("ix_users_name_key", ["name_key"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_index("ix_users_name_key")
        batch.drop_column("name_key")
