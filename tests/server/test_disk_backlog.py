"""The disk's backlog written out before the server serves (`storage.disk_backlog`): only where the
database's commits wait for this machine's disk, and never for longer than the limit."""

from __future__ import annotations

import threading

import pytest

from app.server.storage.disk_backlog import on_this_disk, write_out_backlog


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("sqlite+aiosqlite:///var/preferans.db", True),
        ("sqlite+aiosqlite:///:memory:", False),
        ("postgresql+asyncpg://postgres@127.0.0.1:5432/postgres", True),
        ("postgresql+asyncpg://postgres@localhost/postgres", True),
        ("postgresql+asyncpg://postgres@/postgres?host=/var/run/postgresql", True),
        ("postgresql+asyncpg://postgres@db.example.org:5432/postgres", False),
    ],
)
def test_only_a_database_on_this_machines_disk_is_waited_for(url: str, local: bool) -> None:
    assert on_this_disk(url) is local


def test_the_backlog_is_written_out_and_how_long_it_took_is_told() -> None:
    calls: list[str] = []
    took = write_out_backlog(5.0, sync=lambda: calls.append("sync"))
    assert calls == ["sync"] and took is not None and 0 <= took < 5.0


def test_a_sync_that_hangs_does_not_keep_the_server_from_serving() -> None:
    release = threading.Event()

    def hung() -> None:
        release.wait()

    try:
        assert write_out_backlog(0.05, sync=hung) is None  # still writing: the server serves
    finally:
        release.set()
