/** The leaderboards (issue 21 §1): the site's ladder, or a room's (`#/ratings/room/ID`). People only. */
import { call, session } from "../api.js";
import { draw, h } from "../dom.js";
import { onLangChange } from "../i18n.js";
import { ratingText, rt } from "../ratings.js";

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const room = Number(params[0] ?? 0);
  /** @type {any} */
  let board = null;
  /** @type {any[]} */
  let rooms = [];
  let error = "";
  // The room's statistics are its operator's (and admins'): the link is shown to them only.
  const mayRunRoom = () => {
    const me = session();
    return Boolean(me && (me.role === "admin" || rooms.find((r) => r.id === room)?.operator === me.name));
  };
  const render = () =>
    draw(
      h(
        "section",
        { class: "ratings", "data-leaderboard": room },
        h("h1", {}, rt("leaderboard"), " · ", room ? rt("room_ladder", { name: board?.room_name ?? "" }) : rt("site_ladder")),
        h(
          "nav",
          { class: "ladders" },
          h("a", { href: "#/ratings", "aria-current": room ? undefined : "page" }, rt("site_ladder")),
          ...rooms.map((r) => h("a", { key: r.id, href: `#/ratings/room/${r.id}`, "data-ladder": r.id, "aria-current": r.id === room ? "page" : undefined }, r.name)),
        ),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        room && mayRunRoom() ? h("p", {}, h("a", { href: `#/stats/room/${room}`, "data-room-stats-link": room }, rt("statistics"))) : null,
        board && !board.players.length ? h("p", {}, rt("no_ratings")) : null,
        board?.players.length
          ? h(
              "table",
              { class: "leaderboard" },
              h("thead", {}, h("tr", {}, h("th", {}, rt("rank")), h("th", {}, rt("player")), h("th", {}, rt("rating")), h("th", {}, rt("pulyas")))),
              h(
                "tbody",
                {},
                ...board.players.map((/** @type {any} */ p) =>
                  h(
                    "tr",
                    { key: p.user, "data-board-row": p.user },
                    h("td", {}, String(p.rank)),
                    h("td", {}, h("a", { href: `#/players/${encodeURIComponent(p.user)}` }, p.user)),
                    h("td", { "data-rating": p.rating, "data-provisional": String(p.provisional) }, ratingText(p)),
                    h("td", {}, String(p.games)),
                  ),
                ),
              ),
            )
          : null,
        h("p", { class: "hint" }, rt("provisional_note")),
      ),
      root,
    );
  Promise.all([call("GET", `/api/ratings/leaderboard?room=${room}&limit=100`), call("GET", "/api/rooms")])
    .then(([data, list]) => {
      board = data;
      rooms = list;
      render();
    })
    .catch((exc) => {
      error = String(exc.message);
      render();
    });
  render();
  return onLangChange(render);
}
