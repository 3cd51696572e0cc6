/**
 * Statistics (issue 21 §3): a player's (`#/stats/NAME`) with SVG plots of contracts by level and the index
 * per pulya; a room's for its operator (`#/stats/room/ID`), one row per player.
 */
import { call } from "../api.js";
import { barChart, lineChart } from "../charts.js";
import { draw, h } from "../dom.js";
import { onLangChange } from "../i18n.js";
import { rt } from "../ratings.js";

const dash = (/** @type {unknown} */ v) => (v === null || v === undefined ? rt("none") : String(v));

/** The figures of one player's statistics. @param {any} s */
function figures(s) {
  return [
    h("p", { "data-stat": "pulyas" }, `${rt("pulyas")}: ${s.pulyas} · ${rt("deals")}: ${s.deals}`),
    h("p", { "data-stat": "misere" }, rt("misere_line", { n: s.misere.played, c: s.misere.caught })),
    h("p", { "data-stat": "whists" }, rt("whist_line", { n: s.whists.called, s: s.whists.contract_set, t: dash(s.whists.tricks_per_whist) })),
    h("p", { "data-stat": "allpass" }, rt("allpass_line", { n: s.allpass.deals, t: dash(s.allpass.tricks_per_deal) })),
    h("p", { "data-stat": "index" }, rt("index_line", { a: dash(s.index.average) })),
    h("p", { "data-stat": "time" }, rt("time_line", { s: s.time.thinking_s, d: dash(s.time.per_deal_s), n: s.time.timeouts })),
    h("p", { "data-stat": "mistakes" }, rt("mistakes_line", { n: s.analysis.deals, m: s.analysis.mistakes, p: dash(s.analysis.mistakes_per_deal), l: s.analysis.tricks_lost })),
  ];
}

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const roomId = params[0] === "room" ? Number(params[1]) : 0;
  const name = roomId ? "" : decodeURIComponent(params[0] ?? "");
  /** @type {any} */
  let data = null;
  let error = "";
  const render = () => {
    /** @type {any} */
    const s = data;
    draw(
      h(
        "section",
        { class: "stats", "data-stats-page": roomId ? `room/${roomId}` : name },
        h("h1", {}, roomId ? rt("room_statistics", { name: s?.room_name ?? "" }) : `${rt("statistics")} · ${name}`),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        s && !roomId ? h("p", {}, h("a", { href: `#/players/${encodeURIComponent(name)}` }, rt("rating_history"))) : null,
        s && !roomId ? figures(s) : null,
        s && !roomId
          ? h(
              "div",
              { class: "charts" },
              h("figure", {}, h("figcaption", {}, rt("contracts_by_level")),
                barChart(s.contracts.map((/** @type {any} */ c) => String(c.level)), [
                  { name: rt("declared"), color: "#9bb4dd", values: s.contracts.map((/** @type {any} */ c) => c.declared) },
                  { name: rt("made"), color: "#2c4f8a", values: s.contracts.map((/** @type {any} */ c) => c.made) },
                ], rt("contracts_by_level"))),
              h("figure", {}, h("figcaption", {}, rt("index_chart")), lineChart(s.index.per_pulya.map((/** @type {any} */ p) => p.index), rt("index_chart"))),
            )
          : null,
        s && roomId
          ? h(
              "div",
              { class: "room-stats" },
              ...Object.entries(/** @type {Record<string, any>} */ (s.players)).map(([player, ps]) =>
                h("article", { key: player, "data-room-stats-player": player }, h("h2", {}, h("a", { href: `#/stats/${encodeURIComponent(player)}` }, player)), ...figures(ps)),
              ),
            )
          : null,
      ),
      root,
    );
  };
  call("GET", roomId ? `/api/stats/rooms/${roomId}` : `/api/stats/players/${encodeURIComponent(name)}`)
    .then((result) => {
      data = result;
      render();
    })
    .catch((exc) => {
      error = String(exc.message);
      render();
    });
  render();
  return onLangChange(render);
}
