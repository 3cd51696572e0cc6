/** The centre of the table: the talon, the current trick (all-pass talon leads included), the last trick. */
import { cardElement } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { nameOf } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

const TALON_HAND = -1;

/** @param {Model} model @param {Array<[number, string]>} trick */
function trickCards(model, trick) {
  return trick.map(([hand, card]) => {
    const who = hand === TALON_HAND ? t("allpass_talon") : nameOf(model, hand);
    return h("figure", { key: card, class: "played", "data-hand": hand }, cardElement(card, { owner: who }), h("figcaption", {}, who));
  });
}

/** @param {Model} model */
export function centreElement(model) {
  const deal = model.state.view?.deal;
  const talon = /** @type {string[]} */ (deal?.talon ?? []);
  return h(
    "section",
    { class: "centre", "aria-label": t("trick") },
    h(
      "div",
      { class: "talon", "data-talon": "", role: "group", "aria-label": t("talon") },
      h("span", { class: "label" }, deal?.allpass ? t("allpass") : t("talon")),
      ...talon.map((card) => cardElement(card, { owner: t("talon") })),
    ),
    h("div", { class: "trick", "data-trick": "", role: "group", "aria-label": t("trick"), "aria-live": "polite" }, ...trickCards(model, deal?.trick ?? [])),
    h("div", { class: "last-trick", "data-last-trick": "", role: "group", "aria-label": t("last_trick") }, h("span", { class: "label" }, t("last_trick")), ...trickCards(model, deal?.last_trick ?? [])),
  );
}
