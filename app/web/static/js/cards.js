/** Cards in the engine's notation ("sA": suit letter s c d h, rank 7 8 9 T J Q K A), drawn as SVG. */
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {import("./dom.js").VNode} VNode */

export const SUIT_SYMBOL = /** @type {Record<string, string>} */ ({ s: "♠", c: "♣", d: "♦", h: "♥", n: "БК" });
const RANKS = "789TJQKA";
// Black and red alternate so neighbouring suits never look alike.
const SUIT_ORDER = "sdch";

/** @param {string} card */
export const suitOf = (card) => card[0];
/** @param {string} card */
export const rankOf = (card) => card[1];
/** @param {string} card */
export const isRed = (card) => card[0] === "d" || card[0] === "h";
/** @param {string} rank */
const rankText = (rank) => (rank === "T" ? "10" : rank);

/** Short text, e.g. "10♥". @param {string} card */
export function cardText(card) {
  return rankText(rankOf(card)) + SUIT_SYMBOL[suitOf(card)];
}

/** Spoken label, e.g. "десятка пик" / "ten of spades". @param {string} card */
export function cardLabel(card) {
  return t("card_label", { rank: t(`card_rank_${rankOf(card)}`), suit: t(`suit_of_${suitOf(card)}`) });
}

/** Sorted by suit (♠ ♦ ♣ ♥), high to low within a suit. @param {string[]} cards */
export function sortHand(cards) {
  return [...cards].sort(
    (a, b) =>
      SUIT_ORDER.indexOf(suitOf(a)) - SUIT_ORDER.indexOf(suitOf(b)) ||
      RANKS.indexOf(rankOf(b)) - RANKS.indexOf(rankOf(a)),
  );
}

/** A bid or contract ("7h", "misere-nt", "6n") in words and symbols. @param {string | null} bid */
export function bidText(bid) {
  if (!bid) return "";
  const noTalon = bid.endsWith("-nt");
  const body = noTalon ? bid.slice(0, -3) : bid;
  const base = body === "misere" ? t("misere") : `${body.slice(0, -1)}${SUIT_SYMBOL[body.slice(-1)]}`;
  return noTalon ? `${base} ${t("without_talon")}` : base;
}

/** Spoken bid, e.g. "семь червей" / "seven hearts", "мизер без прикупа". @param {string | null} bid */
export function bidLabel(bid) {
  if (!bid) return "";
  const noTalon = bid.endsWith("-nt");
  const body = noTalon ? bid.slice(0, -3) : bid;
  const base = body === "misere" ? t("misere") : t("bid_label", { level: t(`level_${body.slice(0, -1)}`), suit: t(`suit_of_${body.slice(-1)}`) });
  return noTalon ? `${base} ${t("without_talon")}` : base;
}

/** @param {string} card */
function face(card) {
  const colour = isRed(card) ? "#c0182a" : "#111";
  const rank = rankText(rankOf(card));
  const suit = SUIT_SYMBOL[suitOf(card)];
  return h(
    "svg",
    { xmlns: "http://www.w3.org/2000/svg", viewBox: "0 0 60 84", class: "face", "aria-hidden": "true" },
    h("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#fff", stroke: "#888" }),
    h("text", { x: 6, y: 20, "font-size": 17, "font-weight": 700, fill: colour }, rank),
    h("text", { x: 6, y: 37, "font-size": 16, fill: colour }, suit),
    h("text", { x: 34, y: 68, "font-size": 30, "text-anchor": "middle", fill: colour }, suit),
  );
}

/**
 * A card: a `button` when it can be pressed or must stay reachable by keyboard (`inactive`: shown as
 * unusable with `aria-disabled`, its press ignored), else a plain figure. A card of the deal in progress
 * carries `data-card`; one of a finished deal's reveal (`past`) carries `data-past-card` instead, so "the
 * cards this page shows now" stays exactly the `[data-card]` elements.
 * @param {string} card
 * @param {{onClick?: () => void, inactive?: boolean, selected?: boolean, owner?: string, past?: boolean}} [options]
 * @returns {VNode}
 */
export function cardElement(card, options = {}) {
  const label = cardLabel(card) + (options.owner ? ` — ${options.owner}` : "");
  const hook = options.past ? { "data-past-card": card } : { "data-card": card };
  if (options.onClick || options.inactive) {
    const inactive = options.inactive || !options.onClick;
    return h(
      "button",
      {
        key: card,
        type: "button",
        class: `card${options.selected ? " selected" : ""}`,
        ...hook,
        "aria-label": label,
        "aria-pressed": options.selected === undefined ? undefined : String(options.selected),
        "aria-disabled": inactive ? "true" : undefined,
        onclick: inactive ? undefined : options.onClick,
      },
      face(card),
    );
  }
  return h("span", { key: card, class: "card", role: "img", ...hook, "aria-label": label }, face(card));
}

/** A face-down card (an opponent's hidden hand). */
export function cardBack() {
  return h(
    "span",
    { class: "card back", "aria-hidden": "true" },
    h(
      "svg",
      { xmlns: "http://www.w3.org/2000/svg", viewBox: "0 0 60 84", class: "face" },
      h("rect", { x: 1, y: 1, width: 58, height: 82, rx: 6, fill: "#2c4f8a", stroke: "#15305c" }),
      h("path", { d: "M8 8h44v68H8z", fill: "none", stroke: "#9bb4dd", "stroke-dasharray": "3 3" }),
    ),
  );
}
