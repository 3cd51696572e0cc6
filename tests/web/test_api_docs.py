"""Issue 25: `/docs` loaded Swagger UI from a CDN (no integrity check, no content security policy) on the
origin that keeps the login token in localStorage. The page is now served by the app under the site's
own policy and fetches nothing from anywhere else."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Browser, Request

from tests.web.conftest import ServerProcess


async def test_the_api_docs_fetch_nothing_from_outside(
    browser: Browser, sqlite_server: ServerProcess, artifacts: Path
) -> None:
    page = await browser.new_page()
    requested: list[str] = []
    violations: list[str] = []

    def record(request: Request) -> None:
        requested.append(request.url)

    page.on("request", record)
    page.on(
        "console", lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None
    )
    try:
        response = await page.goto(f"{sqlite_server.url}/docs")
        assert response is not None and response.status == 200
        assert "script-src 'self'" in (await response.all_headers())["content-security-policy"]
        # The interface is drawn from the app's own schema: the routes are listed.
        route = page.locator('[data-path="/api/tables/{table_id}/sit"]').first
        await route.wait_for(timeout=60_000)
        await page.screenshot(path=str(artifacts / "docs.png"))
    finally:
        await page.close()
    assert requested and all(url.startswith(sqlite_server.url) for url in requested), requested
    assert f"{sqlite_server.url}/openapi.json" in requested
    assert not violations, violations
