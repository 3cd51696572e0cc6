/**
 * Chat moderation (issue 22 §4), for operators (their rooms) and administrators (every room): the open
 * reports with the messages around each, remove a message, mute its writer in the room or (admins)
 * site-wide for a time, close a report; the mutes in force, lifted early; each own room's chat settings
 * (the players' chat closed during deals, retention). Every step is audited by the server.
 */
import { call, session, ApiError } from "../api.js";
import { draw, h } from "../dom.js";
import { lang, t, onLangChange } from "../i18n.js";
import { messageText } from "../table/chat.js";

/** @param {number} at */
function when(at) {
  return new Date(at * 1000).toLocaleString(lang());
}

/** @param {HTMLElement} root */
export function mount(root) {
  const user = session();
  const admin = user?.role === "admin";
  /** @type {any[]} */
  let reports = [];
  /** @type {any[]} */
  let mutes = [];
  /** @type {any[]} */
  let rooms = [];
  /** @type {Record<number, {closed_in_deals: boolean, retention_days: number}>} */
  const settings = {};
  /** @type {Record<number, {reason: string, minutes: string}>} */
  const forms = {};
  let notice = "";

  const load = async () => {
    try {
      [reports, mutes, rooms] = await Promise.all([
        call("GET", "/api/chat/reports").then((d) => d.reports),
        call("GET", "/api/chat/mutes").then((d) => d.mutes),
        call("GET", "/api/operator/rooms"),
      ]);
      for (const room of rooms) settings[room.id] = await call("GET", `/api/operator/rooms/${room.id}/chat`);
    } catch (exc) {
      notice = String(/** @type {Error} */ (exc).message);
    }
    render();
  };

  /** @param {() => Promise<unknown>} work */
  const act = async (work) => {
    try {
      await work();
      notice = "";
    } catch (exc) {
      notice = exc instanceof ApiError ? `${exc.code}: ${exc.message}` : String(exc);
    }
    await load();
  };

  /** @param {number} id */
  const form = (id) => (forms[id] ??= { reason: "", minutes: "60" });

  /** @param {any} r */
  const report = (r) => {
    const f = form(r.id);
    const reason = () => f.reason.trim() || r.reason || "chat rules";
    return h(
      "li",
      { class: "report", "data-report": r.id },
      h("p", {}, `${t("mod_room_n", { n: r.room })} · ${t("mod_table_n", { n: r.table })} · ${when(r.at)} · ${t("mod_reported_by", { name: r.reporter })}`, r.reason ? `: ${r.reason}` : ""),
      h(
        "ol",
        { class: "context", "aria-label": t("mod_context") },
        ...r.context.map((/** @type {any} */ m) =>
          h("li", { class: m.reported ? "reported" : undefined, "data-context-message": m.id }, h("strong", {}, m.user), ": ", messageText(m)),
        ),
      ),
      h(
        "div",
        { class: "row" },
        h("label", { for: `mod-reason-${r.id}` }, t("mod_reason")),
        h("input", { id: `mod-reason-${r.id}`, value: f.reason, oninput: (/** @type {Event} */ e) => (f.reason = /** @type {HTMLInputElement} */ (e.target).value) }),
        h("label", { for: `mod-minutes-${r.id}` }, t("mod_minutes")),
        h("input", { id: `mod-minutes-${r.id}`, type: "number", min: 1, value: f.minutes, size: 5, oninput: (/** @type {Event} */ e) => (f.minutes = /** @type {HTMLInputElement} */ (e.target).value) }),
      ),
      h(
        "div",
        { class: "row" },
        r.message.deleted
          ? null
          : h("button", { type: "button", "data-action": "remove-message", "data-message": r.message.id, onclick: () => act(() => call("DELETE", `/api/tables/${r.table}/chat/${r.message.id}`, { reason: reason() })) }, t("mod_remove")),
        h("button", { type: "button", "data-action": "mute-room", "data-user": r.message.user, onclick: () => act(() => call("POST", "/api/chat/mutes", { user: r.message.user, room: r.room, minutes: Number(f.minutes) || 60, reason: reason() })) }, t("mod_mute_room")),
        admin
          ? h("button", { type: "button", "data-action": "mute-site", "data-user": r.message.user, onclick: () => act(() => call("POST", "/api/chat/mutes", { user: r.message.user, minutes: Number(f.minutes) || 60, reason: reason() })) }, t("mod_mute_site"))
          : null,
        h("button", { type: "button", "data-action": "resolve-report", onclick: () => act(() => call("POST", `/api/chat/reports/${r.id}/resolve`)) }, t("mod_resolve")),
      ),
    );
  };

  /** @param {any} room */
  const roomSettings = (room) => {
    const s = settings[room.id];
    if (!s) return null;
    return h(
      "li",
      { "data-room-chat": room.id, class: "row" },
      h("strong", {}, room.name),
      h("label", { class: "check" }, h("input", { type: "checkbox", "data-chat-closed": room.id, checked: s.closed_in_deals, onchange: (/** @type {Event} */ e) => (s.closed_in_deals = /** @type {HTMLInputElement} */ (e.target).checked) }), " ", t("mod_closed_in_deals")),
      h("label", { for: `retention-${room.id}` }, t("mod_retention")),
      h("input", { id: `retention-${room.id}`, type: "number", min: 1, max: 3650, size: 5, value: s.retention_days, oninput: (/** @type {Event} */ e) => (s.retention_days = Number(/** @type {HTMLInputElement} */ (e.target).value)) }),
      h("button", { type: "button", "data-action": "save-room-chat", "data-room": room.id, onclick: () => act(() => call("PUT", `/api/operator/rooms/${room.id}/chat`, { closed_in_deals: s.closed_in_deals, retention_days: s.retention_days })) }, t("mod_save")),
    );
  };

  const render = () =>
    draw(
      h(
        "section",
        { class: "moderation", "data-moderation": "" },
        h("h1", {}, t("mod_title")),
        notice ? h("p", { class: "error", role: "alert", "data-mod-error": "" }, notice) : null,
        h(
          "section",
          { class: "panel" },
          h("h2", {}, t("mod_reports")),
          reports.length ? h("ol", { class: "reports" }, ...reports.map(report)) : h("p", { "data-no-reports": "" }, t("mod_no_reports")),
        ),
        h(
          "section",
          { class: "panel" },
          h("h2", {}, t("mod_mutes")),
          mutes.length
            ? h(
                "ul",
                {},
                ...mutes.map((m) =>
                  h(
                    "li",
                    { "data-mute": m.id, "data-user": m.user },
                    `${m.user} · ${m.room === null ? t("mod_site_wide") : t("mod_room_n", { n: m.room })} · ${t("mod_until", { until: when(m.until) })} · ${m.by}: ${m.reason} `,
                    h("button", { type: "button", "data-action": "lift-mute", onclick: () => act(() => call("DELETE", `/api/chat/mutes/${m.id}`)) }, t("mod_lift")),
                  ),
                ),
              )
            : h("p", {}, t("mod_no_mutes")),
        ),
        rooms.length ? h("section", { class: "panel" }, h("h2", {}, t("mod_rooms")), h("ul", { class: "privacy" }, ...rooms.filter((r) => !r.closed).map(roomSettings))) : null,
      ),
      root,
    );

  load();
  render();
  return onLangChange(render);
}
