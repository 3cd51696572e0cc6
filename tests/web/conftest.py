"""Browser tests: a real server (tests/server's fixture) and Debian's Chromium driven by Playwright.

The browser is `/usr/bin/chromium` launched through `executable_path` (never `playwright install`).
`scripts/test` installs Debian's `chromium` package when it is missing; a browser that cannot start FAILS
these tests — they never skip.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright

from tests.server.conftest import ServerProcess, sqlite_server

__all__ = ["ServerProcess", "sqlite_server"]

CHROMIUM = Path(os.environ.get("PREFERANS_CHROMIUM", "/usr/bin/chromium"))
ARTIFACTS = Path(__file__).resolve().parents[2] / "var" / "artifacts" / "web"


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium package (scripts/test does)")
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            # Root in a container has no user namespaces for the sandbox; /dev/shm is small there.
            args=["--no-sandbox", "--disable-dev-shm-usage", "--autoplay-policy=no-user-gesture-required"],
        )
        try:
            yield chromium
        finally:
            await chromium.close()


@pytest.fixture
def artifacts(request: pytest.FixtureRequest) -> Path:
    """Screenshots of the test go here (git-ignored: /var/)."""
    name: str = request.node.name
    folder = ARTIFACTS / name.replace("/", "_").replace("[", "-").replace("]", "")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True, exist_ok=True)
    return folder
