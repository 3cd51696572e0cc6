/**
 * The element builder every page draws with: h("button", {class: "x", "data-bid": "6s", onclick}, "6♠")
 * makes a virtual node, and `draw(tree, root)` writes the difference from the page's previous tree into
 * the DOM (Preact, vendored in ../vendor). An element that stays in the same place keeps its DOM node, so
 * focus, typed text, an unfolded <details> and a live region's node survive a new frame.
 *
 * Lists whose items can come and go (cards, seats, tricks) give each item a `key`, so a kept item keeps
 * its node rather than the one that happened to stand at its index.
 */
import { h as preactH, render } from "../vendor/htm-preact-standalone.module.js";

export { useEffect, useState } from "../vendor/htm-preact-standalone.module.js";

/** @typedef {import("../vendor/htm-preact-standalone.module.js").VNode} VNode */
/** @typedef {import("../vendor/htm-preact-standalone.module.js").ComponentChildren} Children */
/** @template P @typedef {import("../vendor/htm-preact-standalone.module.js").FunctionComponent<P>} FunctionComponent */

/**
 * An element, or a component with its props. Attributes follow the DOM: `class`, `data-*`, `aria-*`,
 * lower-case `on…` listeners; `null` and `undefined` leave an attribute out (so does `false`, except
 * on `aria-*`, where it is written).
 * @template P
 * @param {string | FunctionComponent<P>} tag
 * @param {(P & {key?: string | number}) | Record<string, unknown> | null} [attrs]
 * @param {...Children} children
 * @returns {VNode}
 */
export function h(tag, attrs = null, ...children) {
  return preactH(tag, attrs, ...children);
}

/** Draw `tree` into `root` by difference with what was drawn there before; `null` empties it. */
export function draw(/** @type {Children} */ tree, /** @type {Element} */ root) {
  render(tree, root);
}
