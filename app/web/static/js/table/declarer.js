/** The declarer's choices: discard two cards (select, then confirm), name the contract or zastrel. */
import { bidLabel, bidText } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { actionButton, legalOf } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

/** @param {Model} model */
export function declarerElement(model) {
  const discard = legalOf(model, "discard")[0];
  const contracts = legalOf(model, "contract");
  const zastrel = legalOf(model, "zastrel")[0];
  if (!discard && !contracts.length && !zastrel) return null;
  /** @type {import("../dom.js").Children[]} */
  const parts = [];
  if (discard) {
    const chosen = [...model.selected];
    parts.push(
      h("p", {}, t("discard_hint"), ` (${chosen.length}/2)`),
      actionButton(
        model,
        chosen.length === 2 ? { type: "discard", seat: discard.seat, cards: chosen } : undefined,
        { class: "primary", "data-action": "discard" },
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
          actionButton(model, a, { key: a.contract, class: `bid strain-${a.contract.replace("-nt", "").slice(-1)}`, "data-contract": a.contract, "aria-label": bidLabel(a.contract) }, bidText(a.contract)),
        ),
      ),
      zastrel ? actionButton(model, zastrel, { "data-action": "zastrel" }, t("zastrel")) : null,
    );
  }
  return h("section", { class: "panel declarer", "aria-label": t("contract") }, h("h3", {}, discard ? t("discard") : t("contract")), ...parts);
}
