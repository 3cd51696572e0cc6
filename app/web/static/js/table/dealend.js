/** The end of a deal: every hand revealed (the record RULES §12 shows the table) and the result in words. */
import { bidText, cardElement, sortHand } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { claimWords, verdictWords } from "./claim.js";
import { nameOf } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

/**
 * "7♥ made. Anna +4 pool; Boris +8 whists on Anna".
 * @param {any} result the engine's DealResult JSON
 * @param {any} line the sheet's history line for the deal (its writes)
 * @param {(seat: number) => string} name
 */
export function resultWords(result, line, name) {
  let head = "";
  const tricks = result?.tricks ?? {};
  if (!result) head = "";
  else if (result.type === "allpass") head = t("allpass_result");
  else if (result.type === "void") head = t("void_deal");
  else if (result.type === "zastrel") head = t("zastrel_result");
  else if (result.contract?.startsWith("misere")) {
    const took = tricks[String(result.declarer)] ?? 0;
    head = took === 0 ? t("misere_made") : t("misere_down", { n: took });
  } else if (result.contract) {
    const level = parseInt(result.contract, 10);
    const took = tricks[String(result.declarer)] ?? 0;
    head = took >= level ? t("made", { c: bidText(result.contract) }) : t("down", { c: bidText(result.contract), n: level - took });
    head = `${name(result.declarer)}: ${head}`;
  }
  const writes = (line?.writes ?? []).map((/** @type {any} */ w) =>
    w.column === "whists"
      ? t("write_whists", { name: name(w.seat), n: w.amount, on: name(w.on) })
      : t(w.column === "pool" ? "write_pool" : "write_mountain", { name: name(w.seat), n: w.amount }),
  );
  return [head, writes.join("; ")].filter(Boolean).join(". ");
}

/** @param {Model} model */
export function dealEndElement(model) {
  const last = model.lastDeal;
  if (!last) return null;
  const hands = /** @type {Record<string, string[]>} */ (last.record?.hands ?? {});
  return h(
    "section",
    { class: "panel deal-end", "data-deal-end": last.number, "aria-label": t("deal_result") },
    h("h3", {}, `${t("deal_result")} — ${t("deal_n", { n: last.number })}`),
    h("p", { class: "result-words", "data-result": "" }, resultWords(last.result, last.line, (s) => nameOf(model, s))),
    last.record?.claim
      ? h("p", { class: "claim-words", "data-deal-claim": last.record.claim.verdict ?? "accepted" }, [...claimWords(last.record.claim, String(last.result?.contract ?? "").startsWith("misere"), (s) => nameOf(model, s)), verdictWords(last.record.claim)].filter(Boolean).join(". "))
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
