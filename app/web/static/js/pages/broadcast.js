/**
 * Broadcast (issue 21 §4), `#/broadcast/TABLE`: a room that broadcasts lets its spectators follow a table
 * one deal behind with every hand open. The page asks the server every few seconds; it gets the last
 * finished deal and only the number of the deal in play, whose cards never reach it.
 */
import { call } from "../api.js";
import { draw, h } from "../dom.js";
import { onLangChange } from "../i18n.js";
import { rt } from "../ratings.js";
import { replayElement } from "../replay.js";
import { resultWords } from "../table/dealend.js";

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const tableId = Number(params[0]);
  /** @type {any} */
  let data = null;
  let error = "";
  let trick = 10;
  let shownDeal = 0;
  let stopped = false;
  // The deal shown is the last one over: its own players (a seat may have changed hands since).
  const name = (/** @type {string} */ seat) => data?.previous?.players?.[seat] ?? data?.players?.[seat] ?? `#${seat}`;

  async function load() {
    try {
      data = await call("GET", `/api/broadcast/tables/${tableId}`);
      error = "";
      if (data.previous && data.previous.deal !== shownDeal) {
        shownDeal = data.previous.deal;
        trick = 0; // a new deal to follow: from its first trick
      }
    } catch (exc) {
      error = String(/** @type {Error} */ (exc).message);
    }
    if (!stopped) render();
  }

  function render() {
    const previous = data?.previous;
    const tricks = previous?.record?.tricks?.length ?? 0;
    draw(
      h(
        "section",
        { class: "broadcast", "data-broadcast": tableId },
        h("h1", {}, rt("broadcast_title", { id: tableId })),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        data?.live_deal ? h("p", { class: "banner", "data-live-deal": data.live_deal }, rt("live_hidden", { n: data.live_deal })) : null,
        data && !previous ? h("p", {}, rt("no_finished_deal")) : null,
        previous
          ? h(
              "div",
              { "data-broadcast-deal": previous.deal },
              h("h2", {}, rt("showing_deal", { n: previous.deal })),
              h("p", {}, resultWords(previous.result, null, (/** @type {number} */ s) => name(String(s)))),
              h(
                "nav",
                { class: "trick-nav" },
                h("button", { type: "button", "data-action": "prev-trick", "aria-disabled": String(trick <= 0), onclick: () => { if (trick > 0) { trick -= 1; render(); } } }, rt("prev")),
                h("span", { "data-trick-shown": trick }, `${trick} / ${tricks}`),
                h("button", { type: "button", "data-action": "next-trick", "aria-disabled": String(trick >= tricks), onclick: () => { if (trick < tricks) { trick += 1; render(); } } }, rt("next")),
              ),
              replayElement(previous, trick, name),
            )
          : null,
      ),
      root,
    );
  }

  const timer = setInterval(load, 2000);
  const unsubscribe = onLangChange(render);
  render();
  load();
  return () => {
    stopped = true;
    clearInterval(timer);
    unsubscribe();
  };
}
