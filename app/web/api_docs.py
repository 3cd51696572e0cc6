"""The interactive API docs (`/docs`, Swagger UI) served by the app itself, under the site's own content
security policy: its scripts and styles come from the `swagger-ui-bundle` package, never from a CDN (the
origin keeps the login token in localStorage: a script from elsewhere could read it), and the page has no
inline script. FastAPI's own pages load their bundle from a CDN, so they are not used; ReDoc (a CDN bundle
as well) is not served. `PREFERANS_API_DOCS=false` turns the docs and `/openapi.json` off.
"""

from __future__ import annotations

from typing import Final

from fastapi import FastAPI, Response
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path  # type: ignore[import-untyped]

_ASSETS: Final = "/docs/assets"

_PAGE: Final = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Preferans table server: API</title>
<link rel="stylesheet" href="{_ASSETS}/swagger-ui.css">
<link rel="icon" type="image/png" href="{_ASSETS}/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{_ASSETS}/swagger-ui-bundle.js"></script>
<script src="/docs/start.js"></script>
</body>
</html>
"""

# Not inline: the policy allows scripts from the app's own origin only.
_START: Final = """window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
});
"""


def mount_api_docs(app: FastAPI) -> None:
    """`/docs` (the page), `/docs/start.js` and `/docs/assets/…` (the Swagger UI bundle)."""
    app.mount(_ASSETS, StaticFiles(directory=str(swagger_ui_path)), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(_PAGE)

    @app.get("/docs/start.js", include_in_schema=False)
    async def start() -> Response:
        return Response(_START, media_type="text/javascript")
