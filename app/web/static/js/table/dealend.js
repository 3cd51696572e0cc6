/** The end of a deal: every hand revealed (the record RULES §12 shows the table) and the result in words. */
import { cardElement, sortHand } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { claimWords, verdictWords } from "./claim.js";
import { interruptedWords, lineWords, resultWords } from "../words.js";
import { nameOf } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

export { resultWords };

/** @param {Model} model */
export function dealEndElement(model) {
  const view = model.state.view;
  if (view?.phase === "interrupted") {
    return h(
      "section",
      { class: "panel deal-end", "data-deal-interrupted": view.deal_number, "aria-label": t("deal_result") },
      h("h3", {}, `${t("deal_result")} — ${t("deal_n", { n: view.deal_number })}`),
      h("p", { class: "result-words", "data-result": "" }, interruptedWords(/** @type {any} */ (view).interrupt_reason)),
    );
  }
  const last = model.lastDeal;
  if (!last) return null;
  const name = (/** @type {number} */ s) => nameOf(model, s);
  const words = [resultWords(last.result, last.line, name), ...(last.after ?? []).map((line) => lineWords(line, name))].join(". ");
  const hands = /** @type {Record<string, string[]>} */ (last.record?.hands ?? {});
  return h(
    "section",
    { class: "panel deal-end", "data-deal-end": last.number, "aria-label": t("deal_result") },
    h("h3", {}, `${t("deal_result")} — ${t("deal_n", { n: last.number })}`),
    h("p", { class: "result-words", "data-result": "" }, words),
    last.record?.claim
      ? h("p", { class: "claim-words", "data-deal-claim": last.record.claim.verdict ?? "accepted" }, [...claimWords(last.record.claim, String(last.result?.contract ?? "").startsWith("misere"), name), verdictWords(last.record.claim)].filter(Boolean).join(". "))
      : null,
    h(
      "div",
      { class: "reveal" },
      ...Object.entries(hands).map(([seat, cards]) =>
        h("div", { class: "reveal-hand", "data-reveal-seat": seat }, h("span", { class: "label" }, nameOf(model, Number(seat))), ...sortHand(cards).map((c) => cardElement(c, { past: true }))),
      ),
      last.record?.talon?.length
        ? h("div", { class: "reveal-hand", "data-reveal-talon": "" }, h("span", { class: "label" }, t("talon")), ...last.record.talon.map((/** @type {string} */ c) => cardElement(c, { past: true })))
        : null,
    ),
  );
}
