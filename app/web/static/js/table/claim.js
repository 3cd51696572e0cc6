/**
 * Claims (RULES §4.10): the declarer's "claim" control with the number of tricks, the claim as the whole
 * table sees it (his hand is shown by the seats themselves), the defenders' accept / reject, and the
 * solver's verdict in words.
 */
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { actionButton, legalOf, nameOf } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

/**
 * The claim in words: who claims what and the answers so far (the verdict: `verdictWords`).
 * @param {any} claim the view's (or the deal record's) `claim`
 * @param {boolean} misere
 * @param {(seat: number) => string} name
 * @returns {string[]}
 */
export function claimWords(claim, misere, name) {
  if (!claim) return [];
  const who = name(claim.seat);
  const lines = [
    misere
      ? t("claim_made_misere", { name: who })
      : claim.tricks === claim.remaining
        ? t("claim_made_rest", { name: who, n: claim.tricks })
        : t("claim_made", { name: who, n: claim.tricks, r: claim.remaining }),
  ];
  for (const [seat, accepted] of claim.answers) {
    lines.push(t(accepted ? "claim_accepted_by" : "claim_rejected_by", { name: name(seat) }));
  }
  return lines;
}

/** The solver's verdict on a rejected claim, in words ("" before there is one). @param {any} claim */
export function verdictWords(claim) {
  return claim?.verdict ? t(`claim_verdict_${claim.verdict}`) : "";
}

/** @param {Model} model */
export function claimElement(model) {
  const view = model.state.view;
  const deal = view?.deal;
  if (!view || !deal || model.state.status !== "playing") return null;
  const options = /** @type {number[] | undefined} */ (view.claims);
  const claim = deal.claim;
  const answers = legalOf(model, "claim_answer");
  const mayClaim = Boolean(options?.length) && model.mySeat === deal.declarer;
  if (!mayClaim && !claim) return null;
  const misere = String(deal.contract ?? "").startsWith("misere");
  const name = (/** @type {number} */ seat) => nameOf(model, seat);
  /** @type {import("../dom.js").Children[]} */
  const parts = [];
  if (claim) {
    const waiting = view.phase === "claim" && view.to_act !== null && view.to_act !== undefined;
    parts.push(
      ...claimWords(claim, misere, name).map((line, i) => h("p", { key: `w${i}`, class: i ? "claim-line" : "claim-head" }, line)),
      claim.verdict ? h("p", { class: "claim-verdict", "data-claim-verdict": claim.verdict }, verdictWords(claim)) : null,
      waiting && !answers.length ? h("p", { class: "claim-wait" }, t("claim_waiting", { name: name(view.to_act) })) : null,
    );
    if (answers.length) {
      const accept = answers.find((a) => a.accept === true);
      const reject = answers.find((a) => a.accept === false);
      parts.push(
        h("p", {}, t("claim_answer_hint")),
        h(
          "div",
          { class: "bid-row" },
          actionButton(model, accept, { class: "primary", "data-claim-answer": "accept" }, t("claim_accept")),
          actionButton(model, reject, { "data-claim-answer": "reject" }, t("claim_reject")),
        ),
      );
    }
  } else if (options) {
    const seat = /** @type {number} */ (model.mySeat);
    const most = Math.max(...options);
    parts.push(
      h("p", {}, misere ? t("claim_hint_misere") : t("claim_hint", { r: most })),
      h(
        "div",
        { class: "bid-row claim-options", role: "group", "aria-label": t("claim") },
        ...[...options].reverse().map((n) =>
          actionButton(
            model,
            { type: "claim", seat, tricks: n },
            { key: n, class: n === most ? "primary" : undefined, "data-claim": n, title: t("claim_n", { n }), "aria-label": t("claim_n", { n }) },
            misere ? t("claim_none") : n === most ? t("claim_rest", { n }) : String(n),
          ),
        ),
      ),
    );
  }
  return h(
    "section",
    { class: "panel claim", "data-claim-panel": claim ? claim.verdict ?? "open" : "offer", "aria-label": t("claim"), "aria-live": "polite" },
    h("h3", {}, t("claim")),
    ...parts,
  );
}
