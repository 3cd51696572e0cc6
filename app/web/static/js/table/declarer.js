/** The declarer's choices: discard two cards (select, then confirm), name the contract or zastrel. */
import { bidText } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { legalOf } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

/** @param {Model} model */
export function declarerElement(model) {
  const discard = legalOf(model, "discard")[0];
  const contracts = legalOf(model, "contract");
  const zastrel = legalOf(model, "zastrel")[0];
  if (!discard && !contracts.length && !zastrel) return null;
  const parts = [];
  if (discard) {
    const chosen = [...model.selected];
    parts.push(
      h("p", {}, t("discard_hint"), ` (${chosen.length}/2)`),
      h(
        "button",
        {
          type: "button",
          class: "primary",
          "data-action": "discard",
          disabled: !(chosen.length === 2 && model.canAct),
          onclick: () => model.act({ type: "discard", seat: discard.seat, cards: chosen }),
        },
        t("discard"),
      ),
    );
  }
  if (contracts.length || zastrel) {
    parts.push(
      h(
        "div",
        { class: "bid-grid contracts", role: "group", "aria-label": t("contract") },
        ...contracts.map((a) =>
          h("button", { type: "button", class: `bid strain-${a.contract.replace("-nt", "").slice(-1)}`, "data-contract": a.contract, disabled: !model.canAct, onclick: () => model.act(a) }, bidText(a.contract)),
        ),
      ),
      zastrel ? h("button", { type: "button", "data-action": "zastrel", disabled: !model.canAct, onclick: () => model.act(zastrel) }, t("zastrel")) : null,
    );
  }
  return h("section", { class: "panel declarer", "aria-label": t("contract") }, h("h3", {}, discard ? t("discard") : t("contract")), ...parts);
}
