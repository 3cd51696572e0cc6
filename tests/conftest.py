"""Fixtures every test package may use: PostgreSQL databases for the tests marked ``postgres``, and the
process-wide analysis gates kept to the test that registers one.

They use ``PREFERANS_TEST_PG_URL``; each test gets a fresh database ``preferans_test_<random>`` that is
dropped afterwards. When CI=true and PostgreSQL is unreachable they fail instead of skipping.
"""

from __future__ import annotations

import asyncio
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from app.server.analysis import policy


@pytest.fixture(autouse=True)
def _analysis_gates_of_this_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building the app (`create_app`) registers the tournaments' analysis gate for the whole process; a
    test that builds one in-process must not leave it to the tests after it (a gate that reads the
    database, met by a test's stand-in session: a red CI, 2026-12-04)."""
    monkeypatch.setattr(policy, "_ROUND_GATES", list(policy._ROUND_GATES))


def _pg_base_url() -> str | None:
    return os.environ.get("PREFERANS_TEST_PG_URL")


async def _pg_admin(base_url: str, sql: str) -> None:
    engine = create_async_engine(base_url, isolation_level="AUTOCOMMIT", connect_args={"timeout": 10})
    try:
        async with engine.connect() as conn:
            await conn.exec_driver_sql(sql)
    finally:
        await engine.dispose()


@pytest.fixture(scope="session")
def pg_base_url() -> str:
    url = _pg_base_url()
    ci = os.environ.get("CI", "").lower() == "true"
    if not url:
        if ci:
            pytest.fail("CI=true but PREFERANS_TEST_PG_URL is not set (scripts/ensure-postgres prints it)")
        pytest.skip("PREFERANS_TEST_PG_URL is not set")
    try:
        asyncio.run(_pg_admin(url, "SELECT 1"))
    except Exception as exc:
        if ci:
            pytest.fail(f"CI=true but PostgreSQL at {url} is unreachable: {exc}")
        pytest.skip(f"PostgreSQL unreachable: {exc}")
    return url


def _replace_db(url: str, name: str) -> str:
    head, _, _ = url.rpartition("/")
    return f"{head}/{name}"


@pytest.fixture
def pg_database(pg_base_url: str) -> Iterator[str]:
    name = f"preferans_test_{secrets.token_hex(6)}"
    asyncio.run(_pg_admin(pg_base_url, f'CREATE DATABASE "{name}"'))
    try:
        yield _replace_db(pg_base_url, name)
    finally:
        asyncio.run(_pg_admin(pg_base_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def database_for(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of a fixture parametrised ``sqlite`` / ``postgres``: a file in the test's directory, or
    a fresh PostgreSQL database (`pg_database`)."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'preferans.db'}"
    return str(request.getfixturevalue("pg_database"))


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def migrated_database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database of each kind (`database_for`) with the migrations applied."""
    from app.db.migrate import upgrade  # (Alembic: loaded by the tests that use it only)

    url = database_for(request, tmp_path)
    upgrade(url)
    return url
