/** A hand as the page shows it: `[data-hand-seat]` with its cards, playable ones as buttons. */
import { cardElement, sortHand } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { legalOf, nameOf } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

/**
 * @param {Model} model
 * @param {number} seat
 * @param {string[]} cards
 */
export function handElement(model, seat, cards) {
  // A lone whister or the 4-seat dealer plays the open hands too: the action names the controlling seat,
  // the card says which hand it comes from.
  const plays = new Map(legalOf(model, "play").filter((a) => cards.includes(a.card)).map((a) => [a.card, a]));
  const discarding = legalOf(model, "discard").length > 0 && seat === model.mySeat;
  const own = seat === model.mySeat;
  const owner = nameOf(model, seat);
  const items = sortHand(cards).map((card) => {
    if (discarding) {
      return cardElement(card, {
        selected: model.selected.has(card),
        onClick: model.canAct ? () => model.toggle(card) : undefined,
        inactive: !model.canAct,
        owner,
      });
    }
    const play = plays.get(card);
    if (play && model.canAct) {
      // A touch screen: the first tap lifts the card, a second tap on it plays it (a slip plays nothing).
      if (model.touch) return cardElement(card, { selected: model.armed === card, onClick: () => (model.armed === card ? model.act(play) : model.arm(card)), owner });
      return cardElement(card, { onClick: () => model.act(play), owner });
    }
    // Own cards (and any hand the seat plays from) stay buttons a keyboard reaches, inert until playable,
    // so the hand reads the same whether or not it is our turn, and focus stays on a card across frames.
    return own || plays.size ? cardElement(card, { inactive: true, owner }) : cardElement(card, { owner });
  });
  return h(
    "div",
    {
      class: `hand${own ? " own" : ""}`,
      "data-hand-seat": seat,
      role: "group",
      "aria-label": t("hand_of", { name: owner }),
      onkeydown: moveFocus,
    },
    ...items,
  );
}

/** Arrow keys move between the hand's playable cards; Enter/Space press the focused one (a button). */
function moveFocus(/** @type {KeyboardEvent} */ event) {
  if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
  const hand = /** @type {HTMLElement} */ (event.currentTarget);
  const buttons = /** @type {HTMLButtonElement[]} */ ([...hand.querySelectorAll('button[data-card]:not([aria-disabled="true"])')]);
  if (!buttons.length) return;
  const at = buttons.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
  const step = event.key === "ArrowRight" ? 1 : -1;
  const next = at < 0 ? 0 : (at + step + buttons.length) % buttons.length;
  buttons[next].focus();
  event.preventDefault();
}
