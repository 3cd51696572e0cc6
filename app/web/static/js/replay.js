/** A finished deal drawn for replay: every hand as it stood before a trick, and the tricks so far. */
import { cardElement, sortHand } from "./cards.js";
import { h } from "./dom.js";
import { rt } from "./ratings.js";

/**
 * @param {{hands: Record<string, string[]>, record: any}} deal the hands as play began and the record
 * @param {number} trick how many tricks are shown played (0..10)
 * @param {(seat: string) => string} name
 * @param {number} [handsAt] the hands are drawn as before this trick (by default: `trick`)
 */
export function replayElement(deal, trick, name, handsAt = trick) {
  const tricks = /** @type {Array<Array<[number, string]>>} */ (deal.record?.tricks ?? []);
  const played = new Set(tricks.slice(0, handsAt).flat().map(([, card]) => card));
  return h(
    "div",
    { class: "replay", "data-replay-trick": trick },
    ...Object.entries(deal.hands).map(([seat, cards]) =>
      h("div", { key: seat, class: "reveal-hand", "data-open-hand": seat }, h("span", { class: "label" }, name(seat)), ...sortHand(cards.filter((c) => !played.has(c))).map((c) => cardElement(c))),
    ),
    deal.record?.talon?.length ? h("div", { class: "reveal-hand" }, h("span", { class: "label" }, rt("talon")), ...deal.record.talon.map((/** @type {string} */ c) => cardElement(c))) : null,
    deal.record?.discard?.length ? h("div", { class: "reveal-hand" }, h("span", { class: "label" }, rt("discard")), ...deal.record.discard.map((/** @type {string} */ c) => cardElement(c))) : null,
    h(
      "ol",
      { class: "replay-tricks", "aria-label": rt("tricks") },
      ...tricks.slice(0, trick).map((cards, i) =>
        h("li", { key: i, "data-replay-trick-cards": i + 1 }, ...cards.map(([seat, card]) => h("span", { key: card, class: "trick-card" }, name(String(seat)), " ", cardElement(card)))),
      ),
    ),
  );
}
