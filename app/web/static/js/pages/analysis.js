/**
 * The solver's analysis of one finished deal (issue 21 §2), `#/analysis/TABLE/DEAL`: a replay trick by
 * trick with every hand open, each card's verdict (the declarer's total tricks with best play before it,
 * the best cards, what it cost its side), the deal's par and each player's mistakes. The figures are the
 * server's (`GET /api/analysis/tables/T/deals/N`), the same as `python -m app.analysis` prints.
 */
import { call } from "../api.js";
import { cardElement, sortHand } from "../cards.js";
import { draw, h } from "../dom.js";
import { onLangChange } from "../i18n.js";
import { rt } from "../ratings.js";
import { resultWords } from "../table/dealend.js";

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const tableId = Number(params[0]);
  const dealNumber = Number(params[1]);
  /** @type {any} */
  let data = null;
  let error = "";
  let errorCode = "";
  /** The trick shown (0-based); -1 shows every card of the deal in one list. */
  let trick = 0;

  const name = (/** @type {number | string} */ seat) => data?.players?.[String(seat)]?.name ?? `#${seat}`;

  /** Each seat's cards left before trick `k`. @param {number} k */
  function handsBefore(k) {
    const played = new Set((data.analysis?.cards ?? []).slice(0, k * 3).map((/** @type {any} */ c) => c.card));
    return Object.entries(/** @type {Record<string, string[]>} */ (data.hands)).map(([seat, cards]) => [seat, cards.filter((c) => !played.has(c))]);
  }

  /** @param {any} c @param {number} index */
  function verdictRow(c, index) {
    return h(
      "tr",
      { key: index, "data-verdict": c.card, "data-loss": c.loss, class: c.loss ? "mistake" : "" },
      h("td", {}, name(c.seat)),
      h("td", {}, cardElement(c.card)),
      h("td", { "data-before": c.before }, String(c.before)),
      h("td", { class: "best-cards" }, ...c.best.map((/** @type {string} */ b) => cardElement(b))),
      h("td", { "data-cost": c.loss }, c.loss ? `−${c.loss}` : rt("optimal")),
    );
  }

  function verdictTable(/** @type {any[]} */ cards, offset = 0) {
    return h(
      "table",
      { class: "verdicts" },
      h("thead", {}, h("tr", {}, h("th", {}, rt("player")), h("th", {}, ""), h("th", {}, rt("before")), h("th", {}, rt("best")), h("th", {}, rt("cost")))),
      h("tbody", {}, ...cards.map((c, i) => verdictRow(c, offset + i))),
    );
  }

  function render() {
    if (!data) {
      return draw(
        h("section", { class: "analysis", "data-analysis-page": "" }, error ? h("p", { class: "error", role: "alert", "data-error": errorCode }, error) : h("p", {}, "…")),
        root,
      );
    }
    const analysis = data.analysis;
    const cards = analysis?.cards ?? [];
    const tricks = Math.ceil(cards.length / 3);
    const shown = trick >= 0 ? cards.slice(trick * 3, trick * 3 + 3) : cards;
    draw(
      h(
        "section",
        { class: "analysis", "data-analysis-page": `${tableId}/${dealNumber}` },
        h("h1", {}, rt("analysis_of", { n: dealNumber }), " · ", h("a", { href: `#/games/${tableId}` }, `#${tableId}`)),
        h("p", {}, resultWords(data.result, null, name)),
        analysis
          ? h(
              "div",
              { class: "analysis-summary" },
              h("p", { "data-par": analysis.start, "data-taken": analysis.taken }, rt("declarer_could", { n: analysis.start, m: analysis.taken })),
              h(
                "ul",
                { class: "mistakes" },
                ...Object.entries(/** @type {Record<string, any>} */ (analysis.mistakes)).map(([seat, m]) =>
                  h("li", { key: seat, "data-mistakes-seat": seat, "data-mistakes": m.mistakes }, `${name(seat)}: ${rt("mistakes")} ${m.mistakes}, ${rt("tricks_lost")} ${m.tricks_lost}`),
                ),
              ),
            )
          : h("p", { "data-no-analysis": "" }, rt("no_analysis")),
        analysis
          ? h(
              "nav",
              { class: "trick-nav" },
              h("button", { type: "button", "data-action": "prev-trick", "aria-disabled": String(trick <= 0), onclick: () => { if (trick > 0) { trick -= 1; render(); } } }, rt("prev")),
              h("span", { "data-trick-shown": trick }, trick >= 0 ? rt("trick_n", { n: trick + 1 }) : rt("all_tricks")),
              h("button", { type: "button", "data-action": "next-trick", "aria-disabled": String(trick < 0 || trick >= tricks - 1), onclick: () => { if (trick >= 0 && trick < tricks - 1) { trick += 1; render(); } } }, rt("next")),
              h("button", { type: "button", "data-action": "all-tricks", onclick: () => { trick = trick >= 0 ? -1 : 0; render(); } }, trick >= 0 ? rt("all_tricks") : rt("trick_n", { n: 1 })),
            )
          : null,
        analysis && trick >= 0
          ? h(
              "div",
              { class: "open-hands", "aria-label": rt("hands_now") },
              h("h2", {}, rt("hands_now")),
              ...handsBefore(trick).map(([seat, held]) =>
                h("div", { key: seat, class: "reveal-hand", "data-open-hand": seat }, h("span", { class: "label" }, name(String(seat))), ...sortHand(/** @type {string[]} */ (held)).map((c) => cardElement(c))),
              ),
            )
          : null,
        analysis ? verdictTable(shown, trick >= 0 ? trick * 3 : 0) : null,
      ),
      root,
    );
  }

  call("GET", `/api/analysis/tables/${tableId}/deals/${dealNumber}`)
    .then((result) => {
      data = result;
      render();
    })
    .catch((exc) => {
      errorCode = exc.code ?? "";
      error = exc.code === "analysis_not_yet" ? rt("analysis_not_yet") : String(exc.message);
      render();
    });
  render();
  return onLangChange(render);
}
