/** Tournaments (RULES §9): the list; players register or withdraw; operators create one in their room. */
import { call, session } from "../api.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";

/** @param {HTMLElement} root */
export function mount(root) {
  const user = session();
  const operator = user?.role === "operator" || user?.role === "admin";
  /** @type {any[] | null} */
  let list = null;
  /** @type {any[]} */
  let rooms = [];
  let error = "";
  const form = { room_id: "", name: "", rounds: "3", round_minutes: "60", round_end_warning: "600", teams: false, robots: false };

  const load = async () => {
    try {
      list = await call("GET", "/api/tournaments");
      if (operator) rooms = await call("GET", "/api/operator/rooms");
      error = "";
    } catch (exc) {
      error = t("error_generic", { msg: String(/** @type {Error} */ (exc).message) });
    }
    render();
  };

  /** @param {string} method @param {string} path @param {any} [body] */
  const act = async (method, path, body) => {
    try {
      const out = await call(method, path, body);
      error = "";
      await load();
      return out;
    } catch (exc) {
      error = t("error_generic", { msg: String(/** @type {Error} */ (exc).message) });
      render();
      return null;
    }
  };

  const create = async () => {
    const out = await act("POST", "/api/tournaments", {
      room_id: Number(form.room_id || rooms[0]?.id),
      name: form.name,
      rounds: Number(form.rounds),
      round_minutes: Number(form.round_minutes),
      overrides: { round_end_warning: Number(form.round_end_warning) },
      teams: form.teams,
      robots: form.robots,
    });
    if (out) location.hash = `#/tournaments/${out.id}`;
  };

  /** @param {keyof typeof form} key @param {string} type */
  const input = (key, type = "text") =>
    h(
      "label",
      {},
      t(`tournament_${key}`),
      type === "checkbox"
        ? h("input", { id: `tournament-${key}`, type, checked: Boolean(form[key]), onchange: (/** @type {Event} */ e) => (/** @type {any} */ (form)[key] = /** @type {HTMLInputElement} */ (e.target).checked) })
        : h("input", { id: `tournament-${key}`, type, step: type === "number" ? "any" : undefined, value: String(form[key]), oninput: (/** @type {Event} */ e) => (/** @type {any} */ (form)[key] = /** @type {HTMLInputElement} */ (e.target).value) }),
    );

  const createForm = () =>
    h(
      "form",
      { class: "panel", "data-tournament-create": "", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); create(); } },
      h("h2", {}, t("tournament_create")),
      h(
        "label",
        {},
        t("tournament_room"),
        h(
          "select",
          { id: "tournament-room", onchange: (/** @type {Event} */ e) => (form.room_id = /** @type {HTMLSelectElement} */ (e.target).value) },
          ...rooms.filter((r) => !r.closed).map((r) => h("option", { value: r.id, selected: String(r.id) === form.room_id }, r.name)),
        ),
      ),
      input("name"),
      input("rounds", "number"),
      input("round_minutes", "number"),
      input("round_end_warning", "number"),
      input("teams", "checkbox"),
      input("robots", "checkbox"),
      h("button", { type: "submit", class: "primary", "data-action": "create-tournament" }, t("tournament_create")),
    );

  const render = () =>
    draw(
      h(
        "section",
        { class: "tournaments", "data-tournaments": "" },
        h("h1", {}, t("tournaments")),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        list && !list.length ? h("p", {}, t("no_tournaments")) : null,
        h(
          "ul",
          {},
          ...(list ?? []).map((x) =>
            h(
              "li",
              { key: x.id, "data-tournament": x.id, "data-status": x.status },
              h("a", { href: `#/tournaments/${x.id}` }, x.name),
              ` · ${t(`tournament_status_${x.status}`)} · ${t("tournament_rounds_n", { n: x.rounds })}`,
              x.status === "registration"
                ? h("button", { type: "button", "data-action": "register", onclick: () => act("POST", `/api/tournaments/${x.id}/register`, {}) }, t("tournament_register"))
                : null,
            ),
          ),
        ),
        operator && rooms.length ? createForm() : null,
      ),
      root,
    );
  load();
  return onLangChange(render);
}
