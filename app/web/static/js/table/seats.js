/** The players around the table: name, connection, dealer / first hand, cards, tricks, clock, hand. */
import { cardBack } from "../cards.js";
import { clockElement } from "../clocks.js";
import { h } from "../dom.js";
import { t, tn } from "../i18n.js";
import { handElement } from "./hand.js";
import { nameOf } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

/** One seat's box. @param {Model} model @param {number} seat */
export function seatElement(model, seat) {
  const { state } = model;
  const view = state.view;
  const deal = view?.deal;
  const info = state.seats[seat];
  const name = nameOf(model, seat);
  /** @type {import("../dom.js").VNode[]} */
  const badges = [];
  const robot = model.state.seats[seat]?.robot;
  if (robot) badges.push(h("span", { class: "badge robot", "data-robot": robot, title: t("robot") }, `🤖 ${robot}`));
  if (view && view.dealer === seat) badges.push(h("span", { class: "badge dealer" }, t("dealer")));
  if (deal && deal.first_hand === seat) badges.push(h("span", { class: "badge first" }, t("first_hand")));
  if (deal && deal.declarer === seat && !deal.allpass) badges.push(h("span", { class: "badge declarer" }, t("declarer")));
  if (deal && deal.timed_out?.includes(seat)) badges.push(h("span", { class: "badge out" }, t("timed_out")));
  const call = deal?.calls?.filter((/** @type {[number, string]} */ c) => c[0] === seat).pop();
  if (call) badges.push(h("span", { class: "badge call" }, callText(call[1])));
  const turn = view?.to_act === seat && state.status === "playing";
  const size = deal?.hand_sizes?.[String(seat)];
  const shown = deal?.hands?.[String(seat)];
  const own = seat === model.mySeat;
  return h(
    "section",
    {
      key: seat,
      class: `seat${turn ? " turn" : ""}${own ? " me" : ""}`,
      "data-seat": seat,
      "data-turn": String(Boolean(turn)),
      "aria-label": name,
      "aria-current": turn ? "true" : undefined,
    },
    h(
      "header",
      {},
      h("span", { class: `dot ${info?.connected ? "on" : "off"}`, role: "img", title: t(info?.connected ? "online" : "offline"), "aria-label": t(info?.connected ? "online" : "offline") }),
      h("strong", { class: "name" }, name + (own ? ` (${t("you")})` : "")),
      ...badges,
      waitingSeatControl(model, seat),
    ),
    h(
      "div",
      { class: "seat-info" },
      size !== undefined ? h("span", { "data-card-count": size }, tn("cards", size)) : null,
      deal?.taken?.[String(seat)] !== undefined ? h("span", {}, tn("tricks", deal.taken[String(seat)])) : null,
      clockElement(model.clocks, seat, name),
    ),
    own ? null : shown ? handElement(model, seat, shown) : size ? h("div", { class: "backs", "aria-hidden": "true" }, ...Array.from({ length: Math.min(size, 12) }, () => cardBack())) : null,
  );
}

/** While the table waits: sit on a free seat, or leave one's own. @param {Model} model @param {number} seat */
function waitingSeatControl(model, seat) {
  if (model.state.status !== "waiting") return null;
  const info = model.state.seats[seat];
  if (!info?.user && model.mySeat === null) {
    return h("button", { type: "button", "data-action": "sit", "data-seat": seat, onclick: () => model.sit(seat) }, t("sit"));
  }
  if (seat === model.mySeat) {
    return h("button", { type: "button", "data-action": "leave", onclick: () => model.leave() }, t("leave"));
  }
  return null;
}

/** @param {string} call */
export function callText(call) {
  return call === "whist" ? t("whist") : call === "half-whist" ? t("half_whist") : t("whist_pass");
}
