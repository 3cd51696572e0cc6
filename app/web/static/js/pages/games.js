/** "My games": the finished and adjourned games of the logged-in player (an adjourned one links back to
 * its table, where the players say "ready": RULES §7.7). */
import { call } from "../api.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";

/** @param {HTMLElement} root */
export function mount(root) {
  /** @type {any[] | null} */
  let games = null;
  const render = () =>
    draw(
      h(
        "section",
        { class: "games", "data-games": "" },
        h("h1", {}, t("my_games")),
        games && !games.length ? h("p", {}, t("no_games")) : null,
        h(
          "ul",
          {},
          ...(games ?? []).map((g) =>
            h(
              "li",
              { "data-game": g.id },
              h("a", { href: `#/games/${g.id}` }, `${t("table")} ${g.id}`),
              ` · ${g.players.map((/** @type {any} */ p) => p.user).join(", ")} · ${t(`status_${g.status}`)}`,
              g.settlement?.result ? ` · ${g.settlement.result.join(" / ")}` : "",
              g.status === "adjourned"
                ? h("a", { class: "button", href: `#/table/${g.id}`, "data-action": "back-to-table", "data-table": g.id }, ` ${t("back_to_table")}`)
                : null,
            ),
          ),
        ),
      ),
      root,
    );
  call("GET", "/api/history").then((data) => {
    games = data;
    render();
  });
  render();
  return onLangChange(render);
}
