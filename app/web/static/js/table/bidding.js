/** The bidding box (only the legal bids enabled), the auction so far, the misère invitation and answer. */
import { bidLabel, bidText } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { actionButton, legalOf, nameOf } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

const STRAINS = ["s", "c", "d", "h", "n"];
const LEVELS = [6, 7, 8, 9, 10];

/** @param {Model} model */
export function biddingElement(model) {
  const deal = model.state.view?.deal;
  const bids = new Map(legalOf(model, "bid").map((a) => [a.bid, a]));
  const pass = legalOf(model, "pass")[0];
  const highest = deal?.highest ?? null;
  const hold = highest && bids.has(highest) ? bids.get(highest) : undefined;
  /** @param {string} key @param {any} action @param {string} label @param {string} [cls] @param {string} [spoken] */
  const button = (key, action, label, cls = "", spoken = label) =>
    actionButton(model, action, { key, class: `bid ${cls}`, "data-bid": key, "aria-label": spoken }, label);
  /** @param {boolean} noTalon */
  const grid = (noTalon) =>
    h(
      "div",
      { class: "bid-grid", role: "group", "aria-label": noTalon ? t("without_talon") : t("bidding_box") },
      ...LEVELS.flatMap((level) =>
        STRAINS.map((strain) => {
          const key = `${level}${strain}${noTalon ? "-nt" : ""}`;
          // The highest bid is repeated only as "hold" (здесь).
          const action = key === highest ? undefined : bids.get(key);
          return button(key, action, bidText(key), `strain-${strain}`, bidLabel(key));
        }),
      ),
    );
  // The no-talon ladder folds away unless it is all that is left to bid (its summary says how many).
  const noTalonBids = [...bids.keys()].filter((b) => b.endsWith("-nt") && b !== "misere-nt");
  const onlyNoTalon = noTalonBids.length > 0 && [...bids.keys()].every((b) => b.endsWith("-nt") || b === highest);
  return h(
    "section",
    { class: "panel bidding", "aria-label": t("bidding_box") },
    h("h3", {}, t("bidding_box")),
    h(
      "div",
      { class: "bid-row" },
      button("pass", pass, t("pass"), "pass"),
      button("hold", hold, highest ? `${t("hold")} (${bidText(highest)})` : t("hold"), "hold", highest ? `${t("hold")}: ${bidLabel(highest)}` : t("hold")),
      button("misere", bids.get("misere"), t("misere"), "misere"),
      button("misere-nt", bids.get("misere-nt"), `${t("misere")} ${t("without_talon")}`, "misere"),
    ),
    grid(false),
    h(
      "details",
      {
        class: "no-talon",
        // The player's own choice to unfold it is the page's to keep: it survives every new frame.
        open: onlyNoTalon || model.noTalonOpen,
        ontoggle: (/** @type {Event} */ e) => model.setNoTalonOpen(/** @type {HTMLDetailsElement} */ (e.currentTarget).open),
      },
      h("summary", { "data-action": "no-talon" }, `${t("without_talon")} (${noTalonBids.length})`),
      grid(true),
    ),
    invitationControls(model),
  );
}

/** §3.3: invite the 4-seat dealer to misère; the dealer's answer. @param {Model} model */
function invitationControls(model) {
  const invite = legalOf(model, "invite_dealer")[0];
  const answers = legalOf(model, "answer_invitation");
  const accept = answers.find((a) => a.accept === true);
  const decline = answers.find((a) => a.accept === false);
  if (!invite && !answers.length && model.state.view?.seats !== 4) return null;
  /** @param {string} key @param {any} action @param {string} label */
  const b = (key, action, label) => actionButton(model, action, { "data-action": key }, label);
  return h("div", { class: "bid-row invitation" }, b("invite", invite, t("invite")), b("accept", accept, t("accept")), b("decline", decline, t("decline")));
}

/** The auction so far, one line per call. @param {Model} model */
export function auctionElement(model) {
  const deal = model.state.view?.deal;
  const auction = /** @type {Array<[number, string | null]>} */ (deal?.auction ?? []);
  const calls = /** @type {Array<[number, string]>} */ (deal?.calls ?? []);
  return h(
    "section",
    { class: "panel auction", "aria-label": t("auction"), "data-auction": "" },
    h("h3", {}, t("auction")),
    h(
      "ol",
      {},
      ...auction.map(([seat, bid]) => h("li", {}, `${nameOf(model, seat)}: `, h("b", {}, bid ? bidText(bid) : t("pass")))),
      deal?.contract ? h("li", { class: "contract" }, `${t("contract")}: `, h("b", {}, bidText(deal.contract))) : null,
      ...calls.map(([seat, call]) => h("li", {}, `${nameOf(model, seat)}: `, h("b", {}, call === "whist" ? t("whist") : call === "half-whist" ? t("half_whist") : t("whist_pass")))),
      deal?.mode ? h("li", {}, h("b", {}, t(deal.mode))) : null,
    ),
  );
}
