/**
 * Import (issue 21 §4), `#/import`: a game's JSON record (`preferans-game/1`, as the export page downloads
 * it) pasted or read from a file, analysed deal by deal by the server's solver: each deal's par, the
 * declarer's tricks, and every card's verdict.
 */
import { call } from "../api.js";
import { cardElement } from "../cards.js";
import { draw, h } from "../dom.js";
import { onLangChange } from "../i18n.js";
import { rt } from "../ratings.js";

/** @param {HTMLElement} root */
export function mount(root) {
  let text = "";
  /** @type {any} */
  let result = null;
  /** @type {any} */
  let players = {};
  let error = "";
  let busy = false;

  async function analyse() {
    busy = true;
    error = "";
    render();
    try {
      const record = JSON.parse(text);
      players = Object.fromEntries((record.players ?? []).map((/** @type {any} */ p) => [String(p.seat), p.name]));
      result = await call("POST", "/api/analysis/record", { deals: record.deals ?? [] });
    } catch (exc) {
      error = String(/** @type {Error} */ (exc).message);
    }
    busy = false;
    render();
  }

  /** @param {Event} event */
  async function readFile(event) {
    const file = /** @type {HTMLInputElement} */ (event.target).files?.[0];
    if (file) {
      text = await file.text();
      render();
    }
  }

  const name = (/** @type {number} */ seat) => players[String(seat)] ?? `#${seat}`;

  const render = () =>
    draw(
      h(
        "section",
        { class: "import", "data-import": "" },
        h("h1", {}, rt("import")),
        h("p", { class: "hint" }, rt("import_hint")),
        h("textarea", { rows: 8, cols: 80, "data-import-text": "", value: text, oninput: (/** @type {Event} */ e) => { text = /** @type {HTMLTextAreaElement} */ (e.target).value; } }),
        h("p", {}, h("input", { type: "file", accept: "application/json,.json", onchange: readFile }), " ",
          h("button", { type: "button", "data-action": "analyse-import", "aria-disabled": String(busy), onclick: () => { if (!busy) analyse(); } }, rt("analyse"))),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        ...(result?.deals ?? []).map((/** @type {any} */ d) =>
          h(
            "details",
            { key: d.deal, "data-imported-deal": d.deal, "data-par": d.analysis?.start ?? "" },
            h("summary", {}, `${d.deal}: `, d.analysis ? rt("declarer_could", { n: d.analysis.start, m: d.analysis.taken }) : rt("no_analysis")),
            d.analysis
              ? h(
                  "table",
                  { class: "verdicts" },
                  h("tbody", {}, ...d.analysis.cards.map((/** @type {any} */ c, /** @type {number} */ i) =>
                    h("tr", { key: i, "data-verdict": c.card, "data-loss": c.loss, class: c.loss ? "mistake" : "" },
                      h("td", {}, name(c.seat)), h("td", {}, cardElement(c.card)), h("td", {}, String(c.before)),
                      h("td", { class: "best-cards" }, ...c.best.map((/** @type {string} */ b) => cardElement(b))),
                      h("td", {}, c.loss ? `−${c.loss}` : rt("optimal"))))),
                )
              : null,
          ),
        ),
      ),
      root,
    );
  render();
  return onLangChange(render);
}
