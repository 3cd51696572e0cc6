/** The club operator's page: create a room (a preset and overrides; the server's per-field errors are shown
 * beside their fields; public or private), and for each own room: open tables at 3 or 4 seats, the live
 * tables, the finished games with their settlements, close the room; for a private room its invited players
 * and invite links (docs/web.md). */
import { call, session, ApiError } from "../api.js";
import { draw, h } from "../dom.js";
import { t, tn, onLangChange } from "../i18n.js";
import { RoomSettingsPanel } from "../room_settings.js";

/** Convention fields offered as inputs; any other field goes in "more overrides" (JSON). */
const FIELDS = [
  ["pool_size", "number"],
  ["deal_time", "number"],
  ["reserve_time", "number"],
  ["stake_per_whist", "number"],
];

/** @param {HTMLElement} root */
export function mount(root) {
  /** @type {Record<string, string>} */
  const form = { name: "", preset: "fspr-leningrad", more: "" };
  /** A new room's privacy: private (only invited players sit) and whether others may watch its tables. */
  const flags = { private: false, spectators: true };
  /** @type {Record<string, string>} */
  let errors = {};
  /** @type {any[]} */
  let rooms = [];
  /** @type {Record<number, {live: any[], games: any[], invites: any}>} */
  const detail = {};
  /** The name typed in each room's invite field, and the server's refusal beside it. */
  /** @type {Record<number, string>} */
  const inviteNames = {};
  let notice = "";
  let loaded = false; // the first load is done: the page will not re-render under a user's hands

  const load = async () => {
    rooms = await call("GET", "/api/operator/rooms");
    for (const room of rooms) {
      if (room.closed) continue;
      const [live, games, invites] = await Promise.all([
        call("GET", `/api/operator/rooms/${room.id}/live`),
        call("GET", `/api/operator/rooms/${room.id}/games`),
        call("GET", `/api/operator/rooms/${room.id}/invites`),
      ]);
      detail[room.id] = { live, games, invites };
    }
    loaded = true;
    render();
  };

  const create = async (/** @type {Event} */ event) => {
    event.preventDefault();
    errors = {};
    /** @type {Record<string, any>} */
    let overrides = {};
    try {
      overrides = form.more.trim() ? JSON.parse(form.more) : {};
    } catch {
      errors.more = t("op_bad_json");
      return render();
    }
    for (const [key, type] of FIELDS) {
      if (form[key]) overrides[key] = type === "number" && !Number.isNaN(Number(form[key])) ? Number(form[key]) : form[key];
    }
    try {
      const room = await call("POST", "/api/rooms", { name: form.name, preset: form.preset, overrides, ...flags });
      notice = t("op_created", { name: room.name });
      for (const key of ["name", "more", ...FIELDS.map(([k]) => k)]) form[key] = "";
      Object.assign(flags, { private: false, spectators: true });
      await load();
    } catch (exc) {
      if (exc instanceof ApiError && exc.status === 422) {
        const field = (exc.field ?? "").replace(/^body\./, "");
        const known = ["name", "preset", "private", "spectators", ...FIELDS.map(([k]) => k)];
        errors[known.includes(field) ? field : "more"] = exc.message;
      } else errors.form = String(/** @type {Error} */ (exc).message);
      render();
    }
  };

  /** @param {number} roomId @param {number} seats */
  const openTable = async (roomId, seats) => {
    await call("POST", `/api/rooms/${roomId}/tables`, { seats });
    await load();
  };

  /** @type {Record<number, string>} */
  const stopReasons = {};
  /** Edits in progress by room: the overrides as JSON and the name; errors by field. */
  /** @type {Record<number, {name: string, overrides: string, errors: Record<string, string>}>} */
  const edits = {};
  /** @param {number} roomId */
  const saveRoom = async (roomId) => {
    const edit = edits[roomId];
    edit.errors = {};
    let overrides;
    try {
      overrides = JSON.parse(edit.overrides || "{}");
    } catch {
      edit.errors.overrides = t("op_bad_json");
      return render();
    }
    try {
      await call("PATCH", `/api/operator/rooms/${roomId}`, { name: edit.name, overrides });
      delete edits[roomId];
      await load();
    } catch (exc) {
      const field = exc instanceof ApiError ? (exc.field ?? "overrides").replace(/^body\./, "") : "overrides";
      edit.errors[field === "name" ? "name" : "overrides"] = String(/** @type {Error} */ (exc).message);
      render();
    }
  };
  /** §7.7: the pulya ends early, settled as it stands, with the operator's reason. @param {number} tableId */
  const stopTable = async (tableId) => {
    try {
      await call("POST", `/api/tables/${tableId}/stop`, { reason: stopReasons[tableId] ?? "" });
      delete errors[`stop${tableId}`];
    } catch (exc) {
      errors[`stop${tableId}`] = String(/** @type {Error} */ (exc).message);
    }
    await load();
  };

  /**
   * §7.7 without consents, with the same reason field: settle when the deal in progress ends, adjourn, resume.
   * @param {number} tableId @param {string} action
   */
  const decree = async (tableId, action) => {
    try {
      await call("POST", `/api/tables/${tableId}/decree`, { action, reason: stopReasons[tableId] ?? "" });
      delete errors[`stop${tableId}`];
    } catch (exc) {
      errors[`stop${tableId}`] = String(/** @type {Error} */ (exc).message);
    }
    await load();
  };

  /**
   * A request of the room's privacy panel: the server's refusal is shown beside the control (by `key`).
   * @param {number} roomId @param {string} key @param {string} method @param {string} path @param {any} [body]
   */
  const privacyCall = async (roomId, key, method, path, body) => {
    try {
      await call(method, path, body);
      delete errors[`${key}${roomId}`];
      if (key === "invite") inviteNames[roomId] = "";
    } catch (exc) {
      errors[`${key}${roomId}`] = String(/** @type {Error} */ (exc).message);
    }
    await load();
  };

  /** The private room's controls: private or public, spectators, invited players, invite links. @param {any} room */
  const privacyPanel = (room) => {
    const base = `/api/operator/rooms/${room.id}`;
    const invites = detail[room.id]?.invites;
    const error = (/** @type {string} */ key) =>
      errors[`${key}${room.id}`] ? h("span", { class: "error", role: "alert", "data-field-error": `${key}-${room.id}` }, errors[`${key}${room.id}`]) : null;
    const toggle = (/** @type {"private" | "spectators"} */ key) =>
      h(
        "label",
        { class: "check" },
        h("input", {
          type: "checkbox",
          "data-action": `toggle-${key}`,
          checked: Boolean(room[key]),
          disabled: key === "spectators" && !room.private,
          onchange: (/** @type {Event} */ e) => privacyCall(room.id, key, "PATCH", base, { [key]: /** @type {HTMLInputElement} */ (e.target).checked }),
        }),
        " ",
        t(`op_${key}`),
        error(key),
      );
    return h(
      "section",
      { class: "privacy", "data-privacy": room.id, "data-private": String(room.private) },
      h("h3", {}, room.private ? t("op_private_room") : t("op_public_room")),
      toggle("private"),
      toggle("spectators"),
      room.private && invites
        ? [
            h(
              "form",
              { class: "bid-row", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); privacyCall(room.id, "invite", "POST", `${base}/invites`, { user: inviteNames[room.id] ?? "" }); } },
              h("input", { "aria-label": t("op_invite_name"), placeholder: t("op_invite_name"), "data-invite-user": room.id, maxlength: 64, value: inviteNames[room.id] ?? "", oninput: (/** @type {Event} */ e) => (inviteNames[room.id] = /** @type {HTMLInputElement} */ (e.target).value) }),
              h("button", { type: "submit", "data-action": "invite-user" }, t("op_invite")),
              error("invite"),
            ),
            h(
              "ul",
              { class: "invited" },
              ...invites.users.map((/** @type {any} */ u) =>
                h(
                  "li",
                  { "data-invited": u.user },
                  u.user,
                  u.link_id ? ` · ${t("op_by_link")}` : "",
                  " ",
                  h("button", { type: "button", "data-action": "uninvite", "data-user": u.user, onclick: () => privacyCall(room.id, "uninvite", "DELETE", `${base}/invites/${u.user_id}`) }, t("op_uninvite")),
                ),
              ),
            ),
            h("button", { type: "button", "data-action": "create-link", onclick: () => privacyCall(room.id, "link", "POST", `${base}/links`) }, t("op_create_link")),
            error("link"),
            h(
              "ul",
              { class: "links" },
              ...invites.links.map((/** @type {any} */ link) =>
                h(
                  "li",
                  { "data-link": link.id, "data-revoked": String(link.revoked_at !== null) },
                  h("input", { readonly: true, "aria-label": t("op_invite_link"), "data-invite-link": link.id, value: `${location.origin}${link.path}`, size: 60, onfocus: (/** @type {Event} */ e) => /** @type {HTMLInputElement} */ (e.target).select() }),
                  ` · ${tn("link_uses", link.uses)}`,
                  link.revoked_at !== null
                    ? ` · ${t("op_link_revoked")}`
                    : h("button", { type: "button", "data-action": "revoke-link", "data-link": link.id, onclick: () => privacyCall(room.id, "revoke", "POST", `${base}/links/${link.id}/revoke`) }, t("op_revoke_link")),
                ),
              ),
            ),
          ]
        : null,
    );
  };

  /** @param {number} roomId */
  const closeRoom = async (roomId) => {
    await call("POST", `/api/operator/rooms/${roomId}/close`);
    await load();
  };

  /** @param {string} key @param {string} [type] */
  const input = (key, type = "text") =>
    h(
      "div",
      { class: "field" },
      h("label", { for: `room-${key}` }, t(`op_${key}`)),
      h("input", {
        id: `room-${key}`,
        name: key,
        type,
        value: form[key] ?? "",
        "aria-invalid": errors[key] ? "true" : undefined,
        oninput: (/** @type {Event} */ e) => (form[key] = /** @type {HTMLInputElement} */ (e.target).value),
      }),
      errors[key] ? h("span", { class: "error", role: "alert", "data-field-error": key }, errors[key]) : null,
    );

  /** The room's edit form: name and overrides (JSON); the server's 422 beside its field. @param {any} room */
  const editForm = (room) => {
    const edit = edits[room.id];
    if (!edit) {
      return h("button", { type: "button", "data-action": "edit-room", onclick: () => { edits[room.id] = { name: room.name, overrides: JSON.stringify(room.overrides), errors: {} }; render(); } }, t("op_edit"));
    }
    const error = (/** @type {string} */ field) => (edit.errors[field] ? h("span", { class: "error", role: "alert", "data-field-error": `edit-${field}` }, edit.errors[field]) : null);
    return h(
      "form",
      { class: "room-edit", "data-room-edit": room.id, onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); saveRoom(room.id); } },
      h("label", {}, t("op_name"), h("input", { name: "name", value: edit.name, oninput: (/** @type {Event} */ e) => (edit.name = /** @type {HTMLInputElement} */ (e.target).value) })),
      error("name"),
      h("label", {}, t("op_overrides"), h("input", { name: "overrides", value: edit.overrides, oninput: (/** @type {Event} */ e) => (edit.overrides = /** @type {HTMLInputElement} */ (e.target).value) })),
      error("overrides"),
      h("button", { type: "submit", "data-action": "save-room" }, t("op_save")),
    );
  };

  const render = () => {
    const me = session();
    draw(
      h(
        "section",
        { class: "operator", "data-operator": me?.name ?? "", "data-loaded": String(loaded) },
        h("h1", {}, t("nav_operator")),
        h(
          "form",
          { class: "panel room-form", onsubmit: create, "data-room-form": "" },
          h("h2", {}, t("op_new_room")),
          input("name"),
          input("preset"),
          ...FIELDS.map(([key]) => input(key, "text")),
          ...(/** @type {const} */ (["private", "spectators"])).map((key) =>
            h(
              "div",
              { class: "field" },
              h(
                "label",
                { class: "check" },
                h("input", { id: `room-${key}`, type: "checkbox", checked: flags[key], onchange: (/** @type {Event} */ e) => (flags[key] = /** @type {HTMLInputElement} */ (e.target).checked) }),
                " ",
                t(`op_${key}`),
              ),
              errors[key] ? h("span", { class: "error", role: "alert", "data-field-error": key }, errors[key]) : null,
            ),
          ),
          h(
            "div",
            { class: "field" },
            h("label", { for: "room-more" }, t("op_more")),
            h("textarea", { id: "room-more", rows: 2, value: form.more, oninput: (/** @type {Event} */ e) => (form.more = /** @type {HTMLTextAreaElement} */ (e.target).value) }),
            errors.more ? h("span", { class: "error", role: "alert", "data-field-error": "more" }, errors.more) : null,
          ),
          errors.form ? h("p", { class: "error", role: "alert" }, errors.form) : null,
          h("button", { type: "submit", class: "primary", "data-action": "create-room" }, t("op_create")),
          notice ? h("p", { role: "status", "data-notice": "" }, notice) : null,
        ),
        ...rooms.map((room) =>
          h(
            "article",
            { class: "panel", "data-op-room": room.id, "data-closed": String(room.closed) },
            h("h2", {}, `${room.name} · ${room.preset}${room.closed ? ` · ${t("op_closed")}` : ""}`, room.private ? h("span", { class: "badge private" }, t("private")) : null),
            h("p", {}, Object.entries(room.overrides).map(([k, v]) => `${k}=${v}`).join(", ") || "—"),
            room.closed ? null : editForm(room),
            room.closed ? null : privacyPanel(room),
            room.closed ? null : h(RoomSettingsPanel, { roomId: room.id }),
            room.closed
              ? null
              : h(
                  "div",
                  { class: "bid-row" },
                  h("button", { type: "button", "data-action": "open-table", "data-seats": 3, onclick: () => openTable(room.id, 3) }, t("op_open_3")),
                  h("button", { type: "button", "data-action": "open-table", "data-seats": 4, onclick: () => openTable(room.id, 4) }, t("op_open_4")),
                  h("button", { type: "button", "data-action": "close-room", onclick: () => closeRoom(room.id) }, t("op_close")),
                ),
            h(
              "ul",
              { class: "live" },
              ...(detail[room.id]?.live ?? []).map((/** @type {any} */ table) =>
                h(
                  "li",
                  { "data-op-table": table.id, "data-status": table.status },
                  h("a", { href: `#/table/${table.id}` }, `${t("table")} ${table.id}`),
                  ` · ${t(`status_${table.status}`)} · `,
                  table.players.map((/** @type {any} */ p) => `${p.user ?? t("free_seat")}${p.user ? ` (${p.connected ? t("online") : t("offline")})` : ""}`).join(", "),
                  table.deal ? ` · ${t("deal_n", { n: table.deal })}` : "",
                  table.pools ? ` · ${t("op_pools", { sum: table.pools.sum, target: table.pools.target })}` : "",
                  table.status === "playing" || table.status === "adjourned"
                    ? h(
                        "span",
                        {},
                        " ",
                        h("input", { "aria-label": t("op_stop_reason"), placeholder: t("op_stop_reason"), "data-stop-reason": table.id, maxlength: 200, oninput: (/** @type {Event} */ e) => (stopReasons[table.id] = /** @type {HTMLInputElement} */ (e.target).value) }),
                        h("button", { type: "button", "data-action": "stop-table", "data-table": table.id, onclick: () => stopTable(table.id) }, t("op_stop")),
                        table.status === "playing"
                          ? h("button", { type: "button", "data-action": "decree-settle", "data-table": table.id, onclick: () => decree(table.id, "settle") }, t("op_settle_after_deal"))
                          : null,
                        table.status === "playing"
                          ? h("button", { type: "button", "data-action": "decree-adjourn", "data-table": table.id, onclick: () => decree(table.id, "adjourn") }, t("op_adjourn"))
                          : h("button", { type: "button", "data-action": "decree-resume", "data-table": table.id, onclick: () => decree(table.id, "resume") }, t("op_resume")),
                        errors[`stop${table.id}`] ? h("span", { class: "error", role: "alert" }, errors[`stop${table.id}`]) : null,
                      )
                    : null,
                ),
              ),
            ),
            h(
              "ul",
              { class: "finished" },
              ...(detail[room.id]?.games ?? []).map((/** @type {any} */ game) =>
                h("li", { "data-op-game": game.id }, h("a", { href: `#/games/${game.id}` }, `${t("table")} ${game.id}`), ` · ${t(`status_${game.status}`)}`, game.settlement?.result ? ` · ${game.settlement.result.join(" / ")}` : ""),
              ),
            ),
          ),
        ),
      ),
      root,
    );
  };
  render();
  load();
  return onLangChange(render);
}
