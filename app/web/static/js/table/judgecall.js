/** "Call the judge" at a tournament table (RULES §9.5): the player's words reach every judge of the
 * tournament with the table; the judge's answer is shown here once given. */
import { call } from "../api.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";

/** @type {{table: number, open: boolean, words: string, sent: any, error: string}} */
const current = { table: 0, open: false, words: "", sent: null, error: "" };

/** @param {number} tableId @param {() => void} rerender */
async function send(tableId, rerender) {
  try {
    current.sent = await call("POST", `/api/tournaments/tables/${tableId}/judge`, { words: current.words });
    current.open = false;
    current.words = "";
    current.error = "";
  } catch (exc) {
    current.error = String(/** @type {Error} */ (exc).message);
  }
  rerender();
}

/**
 * @param {number} tableId
 * @param {import("../socket.js").TableState} state
 * @param {() => void} rerender
 */
export function judgeCallElement(tableId, state, rerender) {
  if (current.table !== tableId) Object.assign(current, { table: tableId, open: false, words: "", sent: null, error: "" });
  if (!(/** @type {any} */ (state.sheet))?.conventions?.tournament) return null;
  return h(
    "div",
    { class: "judge-call", "data-judge-call": current.sent ? current.sent.id : "" },
    current.open
      ? h(
          "form",
          { onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); send(tableId, rerender); } },
          h("label", {}, t("judge_words"), h("input", { id: "judge-words", value: current.words, oninput: (/** @type {Event} */ e) => (current.words = /** @type {HTMLInputElement} */ (e.target).value) })),
          h("button", { type: "submit", "data-action": "send-judge-call" }, t("call_judge")),
        )
      : h("button", { type: "button", "data-action": "call-judge", onclick: () => { current.open = true; rerender(); } }, t("call_judge")),
    current.sent ? h("p", {}, t("judge_called")) : null,
    current.error ? h("p", { class: "error" }, current.error) : null,
  );
}
