/**
 * The pulya (score sheet) drawn as on paper, in SVG: one sector per seat, from the edge inwards its whists
 * on each opponent, its pool (пуля) and its mountain (гора), each written as the running figures
 * ("0.4.8"); the pool size sits in the centre. Every figure names the deal that wrote it (hover: the
 * SVG title; tap: the caption under the sheet).
 */
import { h, useState } from "./dom.js";
import { t } from "./i18n.js";

/**
 * @typedef {{column: "pool" | "mountain" | "whists", seat: number, amount: number, on?: number, reason: string}} Write
 * @typedef {{kind: string, summary: string, writes: Write[], result?: any}} HistoryLine
 * @typedef {{seats: number, pools: number[], mountains: number[], whists: number[][], finished: boolean,
 *   conventions: {pool_size: number}, history: HistoryLine[]}} Sheet
 * @typedef {{figure: number, deal: number}} Entry
 * @typedef {import("./dom.js").VNode} VNode
 */
/** @template P @typedef {import("./dom.js").FunctionComponent<P>} FunctionComponent */

const SIZE = 400;
const C = SIZE / 2;
// Half-sizes of the nested squares: edge | whists | pool | mountain | centre.
const RINGS = [196, 130, 84, 40];

/** Running figures of one column, each with the history line that wrote it. @param {Sheet} sheet */
function columns(sheet) {
  const n = sheet.seats;
  /** @type {{pool: Entry[][], mountain: Entry[][], whists: Entry[][][]}} */
  const out = {
    pool: Array.from({ length: n }, () => []),
    mountain: Array.from({ length: n }, () => []),
    whists: Array.from({ length: n }, () => Array.from({ length: n }, () => [])),
  };
  const totals = { pool: Array(n).fill(0), mountain: Array(n).fill(0), whists: Array.from({ length: n }, () => Array(n).fill(0)) };
  sheet.history.forEach((line, index) => {
    for (const write of line.writes) {
      if (write.column === "whists" && write.on !== undefined) {
        totals.whists[write.seat][write.on] += write.amount;
        out.whists[write.seat][write.on].push({ figure: totals.whists[write.seat][write.on], deal: index });
      } else if (write.column === "pool" || write.column === "mountain") {
        totals[write.column][write.seat] += write.amount;
        out[write.column][write.seat].push({ figure: totals[write.column][write.seat], deal: index });
      }
    }
  });
  return out;
}

/** Angles (degrees, 0 = right, 90 = down) of the sector boundaries and bisectors for n seats. @param {number} n */
function sectors(n) {
  // Seat 0 at the bottom, then clockwise (left, top, right) as players sit.
  if (n === 4) return [90, 180, 270, 0].map((mid) => ({ mid, from: mid - 45, to: mid + 45 }));
  return [
    { mid: 90, from: 30, to: 150 },
    { mid: 210, from: 150, to: 270 },
    { mid: 330, from: 270, to: 390 },
  ];
}

/** The point at "square radius" r along angle a (a ray from the centre to the square of half-size r). */
function onSquare(/** @type {number} */ a, /** @type {number} */ r) {
  const rad = (a * Math.PI) / 180;
  const dx = Math.cos(rad);
  const dy = Math.sin(rad);
  const k = r / Math.max(Math.abs(dx), Math.abs(dy));
  return [C + dx * k, C + dy * k];
}

/** Text that follows a sector's side of the square, with its history per figure. */
function figures(/** @type {Entry[]} */ entries, /** @type {number} */ x, /** @type {number} */ y, /** @type {number} */ rotate, /** @type {Sheet} */ sheet, /** @type {string} */ cls) {
  const parts = entries.length
    ? entries.flatMap((e, i) => {
        const line = sheet.history[e.deal];
        const title = t("written_by", { n: e.deal + 1, text: line?.summary ?? "" });
        const figure = h("tspan", { key: i, "data-history": e.deal, tabindex: 0 }, h("title", {}, title), e.figure);
        return i ? [".", figure] : [figure];
      })
    : ["0"];
  return h("text", { class: cls, ...along(x, y, rotate) }, ...parts);
}

/** A name cut to `max` characters ("Alexandr…"). @param {string} name @param {number} max */
function clip(name, max) {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

/** Centred text at (x, y), turned to run along its side. */
function along(/** @type {number} */ x, /** @type {number} */ y, /** @type {number} */ rotate) {
  const [fx, fy] = [x.toFixed(1), y.toFixed(1)];
  return { x: fx, y: fy, "text-anchor": "middle", "dominant-baseline": "middle", transform: `rotate(${rotate} ${fx} ${fy})` };
}

/**
 * The sheet as SVG (with its data hooks), and a caption for tapped figures (a live region that stays in
 * place while the sheet is redrawn: only its text changes).
 * @type {FunctionComponent<{sheet: Sheet, names: string[], mini?: boolean}>}
 */
function SheetFigure({ sheet, names, mini }) {
  const [caption, setCaption] = useState("");
  const n = sheet.seats;
  const cols = columns(sheet);
  /** @type {VNode[]} */
  const parts = [];
  // Paper: the nested squares and the sector lines from the centre to the edge.
  for (const r of RINGS) parts.push(h("rect", { x: C - r, y: C - r, width: 2 * r, height: 2 * r, class: "line" }));
  for (const s of sectors(n)) {
    const [x1, y1] = onSquare(s.from, RINGS[3]);
    const [x2, y2] = onSquare(s.from, RINGS[0]);
    parts.push(h("line", { x1, y1, x2, y2, class: "line" }));
  }
  parts.push(h("text", { x: C, y: C, class: "pool-size", "text-anchor": "middle", "dominant-baseline": "middle" }, sheet.conventions.pool_size));
  sectors(n).forEach((s, seat) => {
    const side = Math.abs(Math.cos((s.mid * Math.PI) / 180)) > 0.7; // left or right: text runs vertically
    const rotate = side ? (Math.cos((s.mid * Math.PI) / 180) > 0 ? -90 : 90) : 0;
    /** A point at square radius r on the bisector, moved `shift` along the side of the square. */
    const at = (/** @type {number} */ r, /** @type {number} */ shift = 0) => {
      const [x, y] = onSquare(s.mid, r);
      return side ? [x, y + shift] : [x + shift, y];
    };
    const opponents = Array.from({ length: n }, (_, j) => j).filter((j) => j !== seat);
    /** @type {Record<string, number>} */
    const whistAttrs = {};
    for (const j of opponents) whistAttrs[`data-whists-on-${j}`] = sheet.whists[seat][j];
    const width = 2 * RINGS[1] * 0.8;
    const whists = opponents.map((j, k) => {
      const shift = (k - (opponents.length - 1) / 2) * (width / opponents.length);
      const [lx, ly] = at(RINGS[0] - 12, shift);
      const [fx, fy] = at((RINGS[0] + RINGS[1]) / 2 - 4, shift);
      return h(
        "g",
        { class: "whists", "data-whists-on": j },
        // "on Anna" under each whist column, short enough to stay apart (3 columns a side at 4 seats); the
        // full words in its title.
        h(
          "text",
          { class: "on", ...along(lx, ly, rotate) },
          h("title", {}, t("whists_on", { name: names[j] ?? String(j) })),
          t("whists_on_short", { name: clip(names[j] ?? String(j), n === 4 ? 8 : 14) }),
        ),
        figures(cols.whists[seat][j], fx, fy, rotate, sheet, "figure"),
      );
    });
    const [px, py] = at((RINGS[1] + RINGS[2]) / 2);
    const [mx, my] = at((RINGS[2] + RINGS[3]) / 2);
    const [nx, ny] = at(RINGS[0] + 12);
    parts.push(
      h(
        "g",
        { "data-sheet-seat": seat, "data-pool": sheet.pools[seat], "data-mountain": sheet.mountains[seat], ...whistAttrs },
        h("title", {}, names[seat] ?? ""),
        ...whists,
        figures(cols.pool[seat], px, py, rotate, sheet, "figure pool"),
        figures(cols.mountain[seat], mx, my, rotate, sheet, "figure mountain"),
        h("text", { class: "seat-name", ...along(nx, ny, rotate) }, names[seat] ?? ""),
      ),
    );
  });
  const label = `${t("sheet")}: ` + names.map((name, i) => `${name} ${t("pool")} ${sheet.pools[i]}, ${t("mountain")} ${sheet.mountains[i]}`).join("; ");
  /** @param {Event} event */
  const tapped = (event) => {
    const span = /** @type {Element} */ (event.target).closest("[data-history]");
    if (!span) return;
    const deal = Number(span.getAttribute("data-history"));
    setCaption(t("written_by", { n: deal + 1, text: sheet.history[deal]?.summary ?? "" }));
  };
  return h(
    "figure",
    { class: mini ? "sheet mini" : "sheet", "data-sheet": "" },
    h(
      "svg",
      { xmlns: "http://www.w3.org/2000/svg", viewBox: `-22 -22 ${SIZE + 44} ${SIZE + 44}`, class: "sheet-svg", role: "img", "aria-label": label, onclick: tapped },
      ...parts,
    ),
    h("p", { class: "sheet-caption", "aria-live": "polite" }, caption),
  );
}

/**
 * The pulya sheet of a game.
 * @param {Sheet} sheet
 * @param {string[]} names seat names
 * @param {{mini?: boolean}} [options]
 * @returns {VNode}
 */
export function sheetElement(sheet, names, options = {}) {
  return h(SheetFigure, { sheet, names, mini: options.mini });
}

/** A settled figure with its sign: "+12", "−12.50" (a true minus), "0". @param {number | string} v */
function settled(v) {
  const text = String(v);
  if (text.startsWith("-")) return `\u2212${text.slice(1)}`;
  return Number(text) > 0 ? `+${text}` : text;
}

/**
 * The settlement (mountain, variant 1, variant 2, money at the stake), one row per player: four short
 * columns whatever the number of players, so it fits a phone's width and the table page's side column
 * without scrolling (issue 22 §1.4).
 * @param {any} settlement
 * @param {string[]} names
 */
export function settlementElement(settlement, names) {
  const columns = ["mountains", "variant1", "variant2", "money"];
  const headers = { mountains: "mountain", variant1: "variant1", variant2: "variant2", money: "money" };
  return h(
    "table",
    { class: "settlement", "data-settlement": "" },
    h("caption", {}, t("settlement")),
    h(
      "thead",
      {},
      h("tr", {}, h("th", { scope: "col" }, t("player")), ...columns.map((c) => h("th", { scope: "col" }, t(/** @type {Record<string, string>} */ (headers)[c])))),
    ),
    h(
      "tbody",
      {},
      ...names.map((name, seat) =>
        h(
          "tr",
          { "data-settlement-seat": seat },
          h("th", { scope: "row" }, name),
          ...columns.map((c) => {
            const value = settlement[c]?.[seat] ?? "";
            return h("td", {}, c === "mountains" ? String(value) : settled(value));
          }),
        ),
      ),
    ),
  );
}
