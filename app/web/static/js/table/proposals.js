/**
 * The pulya's life outside the deal (RULES §7.7): the open proposal with its answers, the adjournment with
 * who is ready, and a seated player's own proposals (settle now, adjourn, replace me by a named user); a
 * user watching a table of three whose conventions allow it asks to join as a fourth (`fourth_may_join`).
 * Every button is a REST call (`api.js`); the table's socket then brings the new state to everyone.
 */
import { h } from "../dom.js";
import { t } from "../i18n.js";

/**
 * @typedef {{
 *   life: any,
 *   status: string,
 *   mySeat: number | null,
 *   myName: string,
 *   names: string[],
 *   substitute: string,
 *   mayJoin: boolean,
 *   setSubstitute: (name: string) => void,
 *   send: (path: string, body?: any) => void,
 * }} LifeModel
 */

/** @param {any} proposal @param {string[]} names */
function describe(proposal, names) {
  const by = proposal.by === null || proposal.by === undefined ? t("operator_word") : names[proposal.by] ?? "";
  if (proposal.kind === "join") return t("proposal_join", { name: proposal.newcomer?.name ?? "" });
  if (proposal.kind === "substitute") {
    const seatName = names[proposal.seat] ?? proposal.holder?.name ?? "";
    return t("proposal_substitute", { by, seat: seatName, name: proposal.substitute?.name ?? "" });
  }
  return t(`proposal_${proposal.kind}`, { by });
}

/** @param {LifeModel} m */
export function lifeElement(m) {
  const life = m.life;
  const proposal = life?.proposal ?? null;
  const adjourned = life?.adjourned ?? null;
  const seated = m.mySeat !== null;
  if (!proposal && !adjourned && !m.mayJoin && (!seated || m.status !== "playing")) return null;
  /** @type {import("../dom.js").Children[]} */
  const parts = [];
  if (adjourned) {
    const ready = /** @type {number[]} */ (adjourned.ready ?? []);
    parts.push(
      h("p", { "data-adjourned": "" }, t("adjourned_note")),
      h("p", { "data-ready": ready.join(",") }, t("ready_list", { names: ready.map((s) => m.names[s]).join(", ") || "—" })),
    );
    if (seated && !ready.includes(/** @type {number} */ (m.mySeat))) {
      parts.push(h("button", { type: "button", class: "primary", "data-action": "ready", onClick: () => m.send("ready") }, t("ready")));
    }
  }
  if (proposal) {
    const accepted = /** @type {number[]} */ (proposal.accepted ?? []);
    const agreed = proposal.reason !== null && proposal.reason !== undefined;
    const everyone = accepted.length === m.names.length && (proposal.kind !== "substitute" || proposal.substitute_accepted);
    parts.push(
      h("p", { "data-proposal": proposal.kind }, describe(proposal, m.names)),
      proposal.reason ? h("p", { class: "muted" }, t("decree_reason", { reason: proposal.reason })) : null,
      h(
        "p",
        { "data-accepted": accepted.join(",") },
        agreed || everyone ? t("proposal_agreed_note") : t("accepted_by", { names: accepted.map((s) => m.names[s]).join(", ") || "—" }),
      ),
    );
    const iAnswer =
      !agreed &&
      ((seated && !accepted.includes(/** @type {number} */ (m.mySeat))) ||
        (!seated && proposal.kind === "substitute" && proposal.substitute?.name === m.myName && !proposal.substitute_accepted));
    if (iAnswer) {
      parts.push(
        h(
          "div",
          { class: "buttons" },
          h("button", { type: "button", class: "primary", "data-action": "proposal-accept", onClick: () => m.send("proposals/answer", { accept: true }) }, t("accept")),
          h("button", { type: "button", "data-action": "proposal-decline", onClick: () => m.send("proposals/answer", { accept: false }) }, t("decline")),
        ),
      );
    }
    const mine = seated ? proposal.by === m.mySeat : proposal.kind === "join" && proposal.newcomer?.name === m.myName;
    if (mine && !(agreed || everyone)) {
      parts.push(h("button", { type: "button", "data-action": "withdraw", onClick: () => m.send("proposals/withdraw") }, t("withdraw")));
    }
  } else if (m.mayJoin) {
    parts.push(h("button", { type: "button", class: "primary", "data-action": "ask-join", onClick: () => m.send("join") }, t("ask_join")));
  } else if (seated) {
    const propose = (/** @type {string} */ kind, /** @type {any} */ extra = {}) => m.send("proposals", { kind, ...extra });
    parts.push(
      h(
        "div",
        { class: "buttons" },
        h("button", { type: "button", "data-action": "propose-settle", onClick: () => propose("settle") }, t("propose_settle")),
        adjourned ? null : h("button", { type: "button", "data-action": "propose-adjourn", onClick: () => propose("adjourn") }, t("propose_adjourn")),
      ),
      h(
        "form",
        {
          class: "substitute",
          onSubmit: (/** @type {Event} */ e) => {
            e.preventDefault();
            if (m.substitute.trim()) propose("substitute", { substitute: m.substitute.trim() });
          },
        },
        h("input", {
          "data-field": "substitute",
          "aria-label": t("substitute_name"),
          placeholder: t("substitute_name"),
          value: m.substitute,
          onInput: (/** @type {Event} */ e) => m.setSubstitute(/** @type {HTMLInputElement} */ (e.target).value),
        }),
        h("button", { type: "submit", "data-action": "propose-substitute" }, t("propose_substitute")),
      ),
    );
  }
  return h("section", { class: "panel life", "data-life": "", "aria-label": t("proposals") }, h("h3", {}, adjourned ? t("status_adjourned") : t("proposals")), ...parts);
}
