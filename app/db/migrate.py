"""Apply the Alembic migrations (``head``) to a database; called at server start."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from app.db.engine import is_sqlite

ROOT = Path(__file__).resolve().parent.parent.parent


def _ensure_sqlite_dir(url: str) -> None:
    # sqlite+aiosqlite:///./var/x.db → ./var must exist before the first connection.
    if is_sqlite(url) and ":///" in url:
        path = url.split(":///", 1)[1].split("?", 1)[0]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the schema to ``revision`` (the newest by default). Must be called outside a running event
    loop."""
    _ensure_sqlite_dir(url)
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.attributes["database_url"] = url
    command.upgrade(config, revision)
