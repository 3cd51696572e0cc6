"""The browser site: static pages (plain ES modules, HTML, CSS) served by the app itself.

One page (`index.html`) with hash routes (`#/lobby`, `#/table/7`, `#/games`); every page is a module
under `static/js/pages/`, so operator and admin pages join the same site, login and language switch.
"""

from __future__ import annotations

import os
from os import PathLike
from pathlib import Path
from typing import Final

from fastapi import FastAPI, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import Scope

STATIC: Final = Path(__file__).resolve().parent / "static"

# The modules change with every release and are small: always revalidate (ETag) instead of caching stale
# code that would then speak an older protocol.
_NO_STALE: Final = {"Cache-Control": "no-cache"}


class _RevalidatedFiles(StaticFiles):
    def file_response(
        self,
        full_path: PathLike[str] | str,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers.update(_NO_STALE)
        return response


def mount_site(app: FastAPI) -> None:
    """Serve `/` (the page) and `/static/…` (its modules, styles and texts)."""
    app.mount("/static", _RevalidatedFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers=_NO_STALE)
