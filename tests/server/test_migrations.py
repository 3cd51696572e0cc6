"""The schema comes from the Alembic migrations, on SQLite and on PostgreSQL, and matches the models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy.engine import Connection

from app.db.engine import make_engine
from app.db.migrate import upgrade
from app.db.models import Base


def _diff(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(connection, opts={"compare_type": False})
    return list(compare_metadata(context, Base.metadata))


async def _schema_diff(url: str) -> list[Any]:
    engine = make_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(_diff)
    finally:
        await engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'm.db'}"
    url: str = request.getfixturevalue("pg_database")
    return url


async def test_migrations_create_exactly_the_models_schema(database_url: str) -> None:
    import asyncio

    await asyncio.to_thread(upgrade, database_url)
    await asyncio.to_thread(upgrade, database_url)  # idempotent: applied at every start
    assert await _schema_diff(database_url) == []
