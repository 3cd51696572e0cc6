"""Screenshots compared with committed references within a tolerance, measured in the browser.

What changes from deal to deal (card faces, names, clocks, figures, chat, the auction) is masked before
the shot, so the comparison sees the layout: where the panels, the hand, the sheets and the controls are.
``PREFERANS_UPDATE_SCREENSHOTS=1`` writes the references anew; without it a missing reference fails.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from playwright.async_api import Browser, Page

REFERENCES = Path(__file__).resolve().parent / "references"

MASKED = (
    "[data-card]",
    "[data-past-card]",
    ".backs",
    ".clock",
    ".seat .name",
    ".seat-info",
    ".badge",
    "[data-chat-log]",
    ".chat-note",
    "[data-sheet]",
    ".status-line",
    "[data-auction]",
    "[data-deal-end]",
    ".topbar",
    ".your-turn",
    "[data-notice]",
)

DIFFERENCE = """async ([a, b]) => {
    const load = (src) => new Promise((ok, fail) => {
        const img = new Image();
        img.onload = () => ok(img);
        img.onerror = fail;
        img.src = src;
    });
    const [x, y] = await Promise.all([load(a), load(b)]);
    if (x.width !== y.width || x.height !== y.height) return 1;
    const pixels = (img) => {
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const c = canvas.getContext('2d');
        c.drawImage(img, 0, 0);
        return c.getImageData(0, 0, img.width, img.height).data;
    };
    const p = pixels(x), q = pixels(y);
    let differ = 0;
    for (let i = 0; i < p.length; i += 4) {
        const d = Math.max(
            Math.abs(p[i] - q[i]), Math.abs(p[i + 1] - q[i + 1]), Math.abs(p[i + 2] - q[i + 2]));
        if (d > 48) differ++;
    }
    return differ / (p.length / 4);
}"""


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


async def masked_shot(page: Page) -> bytes:
    """The viewport from the top of the page, the changing content painted over."""
    await page.evaluate("() => window.scrollTo(0, 0)")
    masks = [page.locator(selector) for selector in MASKED]
    return await page.screenshot(mask=masks, mask_color="#ff00ff", animations="disabled", caret="hide")


async def compare_with_reference(browser: Browser, shot: bytes, name: str, tolerance: float) -> float:
    """The share of pixels that differ from the committed reference; fails above ``tolerance``."""
    reference = REFERENCES / name
    if os.environ.get("PREFERANS_UPDATE_SCREENSHOTS") == "1":
        reference.parent.mkdir(parents=True, exist_ok=True)
        reference.write_bytes(shot)
    assert reference.exists(), f"no reference {reference} (PREFERANS_UPDATE_SCREENSHOTS=1 writes it)"
    context = await browser.new_context()
    try:
        page = await context.new_page()
        share: float = await page.evaluate(DIFFERENCE, [_data_url(shot), _data_url(reference.read_bytes())])
    finally:
        await context.close()
    assert share <= tolerance, (
        f"{name}: {share:.1%} of the pixels differ from the reference (>{tolerance:.0%})"
    )
    return share
