"""the accounts' revision: set anew with every revocation of a user's tokens (logout, a password reset, an
account disabled), so that each process rechecks its sockets' users only when one was revoked

Revision ID: 0017_accounts_revision
Revises: 0016_unrated_index
Create Date: 2026-12-05
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0017_accounts_revision"
down_revision: str | None = "0016_unrated_index"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As `app.auth.users.ACCOUNTS_REVISION` at this revision (a migration does not import the application).
_KEY = "accounts_revision"


def upgrade() -> None:
    op.execute(f"INSERT INTO server_state (key, value) VALUES ('{_KEY}', 'initial')")


def downgrade() -> None:
    op.execute(f"DELETE FROM server_state WHERE key = '{_KEY}'")
