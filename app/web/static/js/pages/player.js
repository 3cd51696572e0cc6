/** A player's page (issue 21 §1): the site rating and its history chart, and each room ladder. */
import { call } from "../api.js";
import { draw, h } from "../dom.js";
import { onLangChange } from "../i18n.js";
import { ratingChart, ratingText, rt } from "../ratings.js";

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const name = decodeURIComponent(params[0] ?? "");
  /** @type {any} */
  let page = null;
  let error = "";
  const render = () =>
    draw(
      h(
        "section",
        { class: "player", "data-player-page": name },
        h("h1", {}, name, page ? h("span", { class: "rating-big", "data-site-rating": page.site.rating, "data-provisional": String(page.site.provisional) }, ` · ${ratingText(page.site)}`) : null),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        page?.robot ? h("p", { class: "hint", "data-robot": page.robot }, rt("robot_note")) : null,
        page ? h("p", {}, `${rt("pulyas")}: ${page.site.games} · `, h("a", { href: `#/stats/${encodeURIComponent(name)}`, "data-stats-link": name }, rt("statistics"))) : null,
        h("h2", {}, rt("rating_history")),
        page && !page.history.length ? h("p", {}, rt("no_history")) : null,
        page?.history.length ? ratingChart(page.history) : null,
        page?.rooms.length ? h("h2", {}, rt("rooms_ladders")) : null,
        ...(page?.rooms ?? []).map((/** @type {any} */ r) =>
          h(
            "article",
            { key: r.room, class: "room-ladder", "data-room-ladder": r.room },
            h("h3", {}, h("a", { href: `#/ratings/room/${r.room}` }, r.room_name ?? `#${r.room}`), ` · ${ratingText(r)} · ${rt("pulyas")}: ${r.games}`),
            r.history.length ? ratingChart(r.history) : null,
          ),
        ),
      ),
      root,
    );
  call("GET", `/api/ratings/players/${encodeURIComponent(name)}`)
    .then((data) => {
      page = data;
      render();
    })
    .catch((exc) => {
      error = String(exc.message);
      render();
    });
  render();
  return onLangChange(render);
}
