/**
 * A game's record (issue 21 §4), `#/export/TABLE`: every finished deal printed (players, contract and
 * result, all hands, talon, discard, tricks), the settlement, a button to download the JSON record
 * (`preferans-game/1`, docs/export.md) and one to print the page.
 */
import { call } from "../api.js";
import { bidText } from "../cards.js";
import { draw, h } from "../dom.js";
import { onLangChange } from "../i18n.js";
import { rt } from "../ratings.js";
import { replayElement } from "../replay.js";
import { resultWords } from "../table/dealend.js";

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const tableId = Number(params[0]);
  /** @type {any} */
  let game = null;
  let error = "";
  const name = (/** @type {string} */ seat) => game?.players.find((/** @type {any} */ p) => String(p.seat) === seat)?.name ?? `#${seat}`;

  function download() {
    const blob = new Blob([JSON.stringify(game, null, 1)], { type: "application/json" });
    const link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = `preferans-table-${tableId}.json`;
    link.click();
    URL.revokeObjectURL(link.href);
  }

  const render = () =>
    draw(
      h(
        "section",
        { class: "export", "data-export": tableId },
        h("h1", {}, `${rt("export")} · #${tableId}`),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        game
          ? h(
              "p",
              { class: "no-print" },
              h("button", { type: "button", "data-action": "download-json", onclick: download }, rt("download_json")),
              " ",
              h("button", { type: "button", "data-action": "print", onclick: () => window.print() }, rt("print")),
            )
          : null,
        game ? h("p", {}, game.players.map((/** @type {any} */ p) => `${p.seat}: ${p.name}`).join(" · "), game.settlement?.result ? ` — ${game.settlement.result.join(" / ")}` : "") : null,
        ...(game?.deals ?? []).map((/** @type {any} */ d) =>
          h(
            "article",
            { key: d.deal, class: "printed-deal", "data-printed-deal": d.deal },
            h("h2", {}, `${d.deal}. ${resultWords(d.result, null, (/** @type {number} */ s) => name(String(s)))}`, d.result?.contract ? ` (${bidText(d.result.contract)})` : ""),
            replayElement({ hands: d.record.hands, record: d.record }, d.record.tricks?.length ?? 0, name, 0),
          ),
        ),
      ),
      root,
    );
  call("GET", `/api/export/tables/${tableId}`)
    .then((data) => {
      game = data;
      render();
    })
    .catch((exc) => {
      error = String(exc.message);
      render();
    });
  render();
  return onLangChange(render);
}
