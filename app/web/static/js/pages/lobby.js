/** The lobby: rooms, their tables with seats, players, connection status and the game's state; sit or watch.
 * A private room the user was not invited to is listed only if its operator lets others watch, marked, with
 * no seats offered (the server refuses them anyway). */
import { call } from "../api.js";
import { draw, h } from "../dom.js";
import { t, tn, onLangChange } from "../i18n.js";
import { ratingBadge, rt } from "../ratings.js";
import { rulesElement } from "../rules.js";

/**
 * @typedef {{id: number, name: string, operator: string, conventions: any, private: boolean, may_sit: boolean}} Room
 * @typedef {{id: number, room_id: number, seats: number, status: string, players: import("../protocol").SeatInfo[]}} Table
 * @typedef {{broadcast: boolean, tables: Record<string, Record<string, any>>}} Seated the seated players' ratings by table and seat
 * @typedef {{room: Room, tables: Table[], seated: Seated | null}} LobbyRoom `seated` null: not to be had just now
 */

/** @param {HTMLElement} root */
export function mount(root) {
  /** @type {LobbyRoom[]} */
  let rooms = [];
  let error = "";
  let stopped = false;

  async function load() {
    try {
      // One request for the whole page: the rooms, each with its tables and its seated players' ratings.
      rooms = /** @type {LobbyRoom[]} */ (await call("GET", "/api/lobby"));
      error = "";
    } catch (exc) {
      error = String(/** @type {Error} */ (exc).message);
    }
    if (!stopped) render();
  }

  /** @param {Table} table @param {number | null} seat */
  async function sit(table, seat) {
    try {
      await call("POST", `/api/tables/${table.id}/sit`, { seat });
      location.hash = `#/table/${table.id}`;
    } catch (exc) {
      error = String(/** @type {Error} */ (exc).message);
      render();
    }
  }

  /**
   * @param {Room} room @param {Table} table
   * @param {Record<string, any>} [ratings] the seated players' @param {boolean} [broadcast] the room's
   */
  function tableElement(room, table, ratings = {}, broadcast = false) {
    return h(
      "li",
      { key: table.id, class: "table-card", "data-lobby-table": table.id, "data-status": table.status },
      h("h3", {}, `${t("table")} ${table.id} · ${tn("players", table.seats)} · `, h("span", { class: `status ${table.status}` }, t(`status_${table.status}`))),
      h(
        "ul",
        { class: "lobby-seats" },
        ...table.players.map((p) =>
          h(
            "li",
            { "data-lobby-seat": p.seat },
            h("span", { class: `dot ${p.connected ? "on" : "off"}`, role: "img", "aria-label": t(p.connected ? "online" : "offline") }),
            p.robot ? h("span", { "data-robot": p.robot, title: t("robot") }, `🤖 ${p.robot}`) : p.user ?? t("free_seat"),
            p.user && !p.robot ? ratingBadge(ratings[String(p.seat)]) : null,
            !p.user && table.status === "waiting" && room.may_sit
              ? h("button", { type: "button", "data-action": "sit", "data-table": table.id, "data-seat": p.seat, onclick: () => sit(table, p.seat) }, t("sit"))
              : null,
          ),
        ),
      ),
      h("a", { class: "button", href: `#/table/${table.id}`, "data-action": "watch", "data-table": table.id }, t(table.status === "waiting" || table.status === "adjourned" ? "open_table" : "watch")),
      broadcast ? h("a", { class: "button", href: `#/broadcast/${table.id}`, "data-action": "broadcast", "data-table": table.id }, rt("broadcast")) : null,
    );
  }

  function render() {
    draw(
      h(
        "section",
        { class: "lobby", "data-lobby": "" },
        h("h1", {}, t("rooms")),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        rooms.length ? null : h("p", {}, t("no_rooms")),
        ...rooms.map(({ room, tables, seated }) =>
          h(
            "article",
            { key: room.id, class: "room", "data-room": room.id, "data-private": String(room.private), "data-may-sit": String(room.may_sit) },
            h("h2", {}, room.name, room.private ? h("span", { class: "badge private" }, t("private")) : null),
            room.may_sit ? null : h("p", { class: "hint", "data-invite-only": room.id }, t("invite_only")),
            rulesElement(room, { robots: tables.reduce((n, table) => n + table.players.filter((p) => p.robot).length, 0) }),
            h("ul", { class: "tables" }, ...tables.map((table) => tableElement(room, table, seated?.tables[String(table.id)], seated?.broadcast))),
          ),
        ),
      ),
      root,
    );
  }

  const timer = setInterval(load, 3000);
  const unsubscribe = onLangChange(render);
  render();
  load();
  return () => {
    stopped = true;
    clearInterval(timer);
    unsubscribe();
  };
}
