/** One finished game: its sheet, the settlement and every deal (result in words, hands, tricks). */
import { call } from "../api.js";
import { cardElement, sortHand } from "../cards.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";
import { rt } from "../ratings.js";
import { sheetElement, settlementElement } from "../sheet.js";
import { lineWords, resultWords } from "../words.js";

// The sheet's lines that record no deal (app.engine.scoring.sheet.NOT_DEALS).
const NOT_DEALS = ["timeout", "sanction", "substitute", "join", "round_end"];

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const id = Number(params[0]);
  /** @type {any} */
  let history = null;
  /** @type {string[]} */
  let names = [];
  const render = () => {
    if (!history) return draw(h("p", {}, "…"), root);
    const sheet = history.sheet;
    // Each scored deal wrote one line of its kind, in order (an interrupted deal may have none); a deal
    // played before a fourth joined keeps its line's writes, not its result (RULES §7.7).
    const lines = (sheet?.history ?? []).filter((/** @type {any} */ l) => !NOT_DEALS.includes(l.kind));
    let next = 0;
    const lineOf = (/** @type {any} */ result) => (result && lines[next]?.kind === result.type ? lines[next++] : null);
    const name = (/** @type {number} */ s) => names[s] ?? `#${s}`;
    // Who held each seat in deal ``n`` (a substitute, a fourth who joined: the holders say from when).
    const nameIn = (/** @type {number} */ n) => (/** @type {number} */ s) => {
      const held = (history.holders ?? []).find(
        (/** @type {any} */ x) => x.seat === s && x.first_deal <= n && (x.last_deal === null || n <= x.last_deal),
      );
      return held ? held.user : name(s);
    };
    draw(
      h(
        "section",
        { class: "game", "data-game-page": id },
        h("h1", {}, `${t("table")} ${id} · `, h("span", { "data-status": history.status }, t(`status_${history.status}`))),
        sheet ? sheetElement(sheet, names) : null,
        history.settlement ? settlementElement(history.settlement, names) : null,
        h("p", { class: "no-print" }, h("a", { href: `#/export/${id}`, "data-export-link": id }, rt("export")), " · ", h("a", { href: "#/import" }, rt("import"))),
        h("h2", {}, t("deals")),
        h(
          "ol",
          { class: "deal-list" },
          ...history.deals.map((/** @type {any} */ d) =>
            h(
              "li",
              { "data-deal": d.deal },
              h(
                "details",
                {},
                h("summary", {}, `${t("deal_n", { n: d.deal })}: ${resultWords(d.result, lineOf(d.result), nameIn(d.deal))}`),
                ...Object.entries(d.record?.record?.hands ?? {}).map(([seat, cards]) =>
                  h("div", { class: "reveal-hand" }, h("span", { class: "label" }, nameIn(d.deal)(Number(seat))), ...sortHand(/** @type {string[]} */ (cards)).map((c) => cardElement(c))),
                ),
              ),
              h("a", { class: "analysis-link", href: `#/analysis/${id}/${d.deal}`, "data-analysis-link": d.deal }, rt("analysis")),
            ),
          ),
        ),
        // Every entry of the sheet in words, the timeout penalties, awards and sanctions included.
        sheet?.history?.length ? h("h2", {}, t("sheet_lines")) : null,
        sheet?.history?.length
          ? h("ol", { class: "sheet-lines" }, ...sheet.history.map((/** @type {any} */ line, /** @type {number} */ k) => h("li", { "data-sheet-line": k }, lineWords(line, name))))
          : null,
      ),
      root,
    );
  };
  Promise.all([call("GET", `/api/tables/${id}/history`), call("GET", `/api/tables/${id}`)]).then(([data, table]) => {
    history = data;
    names = table.players.map((/** @type {any} */ p) => p.user ?? "");
    render();
  });
  render();
  return onLangChange(render);
}
