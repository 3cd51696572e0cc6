"""Measurements taken in the browser: WCAG contrast of text against what is drawn behind it, and whether
an element fits its box and the window."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

# WCAG 2 relative luminance and contrast; the background is the first opaque one up the tree (a
# half-transparent layer is composited over what lies under it).
CONTRAST = """(selector) => {
    const parse = (c) => {
        const m = c.match(/rgba?\\(([^)]+)\\)/);
        if (!m) return [0, 0, 0, 0];
        const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
        return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    };
    const over = (top, under) => {
        const a = top[3];
        return [0, 1, 2].map(i => top[i] * a + under[i] * (1 - a)).concat([1]);
    };
    const background = (el) => {
        const layers = [];
        for (let e = el; e; e = e.parentElement) {
            const c = parse(getComputedStyle(e).backgroundColor);
            if (c[3] > 0) layers.push(c);
            if (c[3] >= 1) break;
        }
        let colour = [255, 255, 255, 1];
        for (const layer of layers.reverse()) colour = over(layer, colour);
        return colour;
    };
    const lum = (c) => {
        const [r, g, b] = c.slice(0, 3).map(v => {
            v /= 255;
            return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    return [...document.querySelectorAll(selector)].map(el => {
        const bg = background(el);
        const fg = over(parse(getComputedStyle(el).color), bg);
        const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
        return {cls: el.className, text: el.textContent, ratio: (a + 0.05) / (b + 0.05),
                px: parseFloat(getComputedStyle(el).fontSize)};
    });
}"""

FITS = """(selector) => [...document.querySelectorAll(selector)].map(el => {
    const box = el.getBoundingClientRect();
    const parent = el.parentElement.getBoundingClientRect();
    return {
        overflow: el.scrollWidth - el.clientWidth,
        right: box.right - Math.min(parent.right, document.documentElement.clientWidth),
        left: Math.max(parent.left, 0) - box.left,
        width: box.width,
        page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    };
})"""


# The innermost elements that reach past the window's right edge (none of their children does): the
# page's sideways scroll names its cause in the failure message.
WIDER = """() => {
    const limit = document.documentElement.clientWidth + 1;
    return [...document.querySelectorAll('body *')]
        .filter(el => el.getBoundingClientRect().right > limit)
        .filter(el => ![...el.children].some(c => c.getBoundingClientRect().right > limit))
        .slice(0, 8)
        .map(el => {
            const classes = el.className ? '.' + String(el.className).split(' ').join('.') : '';
            const tag = el.tagName.toLowerCase() + classes;
            const attrs = [...el.attributes].map(a => a.name).filter(n => n.startsWith('data-')).join(' ');
            return `${tag}[${attrs}] right=${Math.round(el.getBoundingClientRect().right)} `
                + `text=${JSON.stringify((el.textContent || '').slice(0, 60))}`;
        });
}"""


async def sideways(page: Page) -> str:
    """How far the page scrolls sideways ("" when it does not), with the elements that stick out."""
    overflow: int = await page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    if overflow <= 1:
        return ""
    wider: list[str] = await page.evaluate(WIDER)
    return f"{overflow}px wider than the window: {wider}"


async def contrasts(page: Page, selector: str) -> list[dict[str, Any]]:
    """Each element's text contrast ratio (``ratio``), class and font size, as the browser draws it."""
    result: list[dict[str, Any]] = await page.evaluate(CONTRAST, selector)
    return result


async def assert_fits(page: Page, selector: str, label: str) -> None:
    """Every element matching ``selector`` is shown whole: no inner scrolling, inside its parent and the
    window, and the page itself does not scroll sideways."""
    boxes: list[dict[str, Any]] = await page.evaluate(FITS, selector)
    assert boxes, f"{label}: nothing matches {selector}"
    for box in boxes:
        assert box["width"] > 0, f"{label}: {selector} is not shown"
        assert box["overflow"] <= 1, f"{label}: {selector} scrolls by {box['overflow']}px"
        assert box["right"] <= 1 and box["left"] <= 1, f"{label}: {selector} is clipped: {box}"
        assert box["page"] <= 1, f"{label}: the page is {await sideways(page)}"


async def axe_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it stands (axe-playwright-python)."""
    from axe_playwright_python.async_playwright import Axe

    results = await Axe().run(page)
    violations: list[dict[str, Any]] = results.response["violations"]
    return [v for v in violations if v.get("impact") in ("serious", "critical")]


async def assert_accessible(page: Page, label: str) -> None:
    found = await axe_violations(page)
    report = [
        (v["id"], v["impact"], v["help"], [n["target"] for n in v["nodes"]][:5], v["nodes"][0]["html"][:200])
        for v in found
    ]
    assert not found, f"{label}: {report}"
