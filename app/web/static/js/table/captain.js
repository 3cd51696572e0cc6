/** "Call the captain" at a team tournament's table (RULES §9.6): at one's turn in the auction; the captain
 * (or the deputy) has 20 s to read the hand and the auction and may send one suggested bid, shown here. */
import { call } from "../api.js";
import { bidText } from "../cards.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";

/** @type {{table: number, call: any, error: string, timer: number | undefined}} */
const current = { table: 0, call: null, error: "", timer: undefined };

/** @param {number} tableId @param {() => void} rerender */
async function ask(tableId, rerender) {
  try {
    current.call = await call("POST", `/api/tournaments/tables/${tableId}/captain`);
    current.error = "";
    clearInterval(current.timer);
    current.timer = window.setInterval(async () => {
      try {
        current.call = await call("GET", `/api/tournaments/captain-calls/${current.call.id}`);
      } catch {
        /* the next poll tries again */
      }
      if (!current.call.open || current.call.suggestion) clearInterval(current.timer);
      rerender();
    }, 2000);
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
export function captainElement(tableId, state, rerender) {
  if (current.table !== tableId) Object.assign(current, { table: tableId, call: null, error: "" });
  const sheet = /** @type {any} */ (state.sheet);
  if (!sheet?.conventions?.tournament) return null;
  const myTurn = state.view?.phase === "bidding" && state.legal.length > 0;
  const shown = current.call && current.call.deal_number === state.view?.deal_number ? current.call : null;
  if (!myTurn && !shown) return null;
  return h(
    "div",
    { class: "panel captain", "data-captain": shown ? shown.id : "" },
    myTurn ? h("button", { type: "button", "data-action": "call-captain", onclick: () => ask(tableId, rerender) }, t("call_captain")) : null,
    shown
      ? h(
          "p",
          { "data-captain-suggestion": shown.suggestion ?? "" },
          shown.suggestion
            ? t("captain_suggests", { name: shown.captain, bid: shown.suggestion === "pass" ? t("pass") : bidText(shown.suggestion) })
            : shown.open
              ? t("captain_called", { name: shown.captain })
              : t("captain_silent", { name: shown.captain }),
        )
      : null,
    current.error ? h("p", { class: "error" }, current.error) : null,
  );
}
