/** Whist calls (whist, pass, half-whist, the gentleman re-ask, the return), open/closed, the dealer's look. */
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { actionButton, legalOf, nameOf } from "./model.js";

/** @typedef {import("./model.js").Model} Model */

/** @param {Model} model */
export function whistingElement(model) {
  const calls = legalOf(model, "whist");
  const modes = legalOf(model, "play_mode");
  const looks = legalOf(model, "dealer_look");
  const phase = model.state.view?.phase;
  if (!calls.length && !modes.length && !looks.length && phase !== "whisting" && phase !== "play_mode") return null;
  /** @param {string} call @param {string} label */
  const callButton = (call, label) => {
    const action = calls.find((a) => a.call === call);
    return actionButton(model, action, { "data-call": call }, label);
  };
  /** @param {string} mode */
  const modeButton = (mode) => {
    const action = modes.find((a) => a.mode === mode);
    return actionButton(model, action, { "data-play": mode }, t(mode));
  };
  return h(
    "section",
    { class: "panel whisting", "aria-label": t("whists") },
    h("h3", {}, t("whists")),
    h("div", { class: "bid-row" }, callButton("whist", t("whist")), callButton("pass", t("whist_pass")), callButton("half-whist", t("half_whist"))),
    h("div", { class: "bid-row" }, modeButton("open"), modeButton("closed")),
    looks.length
      ? h(
          "div",
          { class: "bid-row" },
          ...looks.map((a) =>
            actionButton(model, a, { key: a.target, "data-action": "look", "data-target": a.target }, t("look", { name: nameOf(model, a.target) })),
          ),
        )
      : null,
  );
}
