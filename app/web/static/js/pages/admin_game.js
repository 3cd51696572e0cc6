/** A game's admin page: judges' sanctions (RULES §11) written into its sheet, and their revocations. */
import { call, ApiError } from "../api.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";
import { sheetElement } from "../sheet.js";

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const id = Number(params[0]);
  /** @type {any[]} */
  let catalogue = [];
  /** @type {any[]} */
  let sanctions = [];
  /** @type {string[]} */
  let names = [];
  /** @type {any} */
  let sheet = null;
  /** @type {Record<string, string>} */
  let errors = {};
  /** @type {Record<string, string>} */
  const form = { violation: "", role: "", seat: "0", deal: "", reason: "", allow_offline: "" };
  /** @type {Record<number, string>} */
  const revokeReasons = {};

  const load = async () => {
    const [entries, list, table] = await Promise.all([
      call("GET", "/api/admin/catalogue"),
      call("GET", `/api/admin/tables/${id}/sanctions`),
      call("GET", `/api/tables/${id}`),
    ]);
    catalogue = entries;
    sanctions = list;
    names = table.players.map((/** @type {any} */ p) => p.user ?? "");
    if (!form.violation && catalogue.length) {
      form.violation = catalogue[0].key;
      form.role = Object.keys(catalogue[0].penalties)[0] ?? "";
    }
    render();
  };

  /** @param {() => Promise<any>} request */
  const submit = async (request) => {
    errors = {};
    try {
      const out = await request();
      sheet = out.sheet;
      sanctions = await call("GET", `/api/admin/tables/${id}/sanctions`);
    } catch (exc) {
      if (exc instanceof ApiError && exc.status === 422) errors[exc.field ?? "form"] = exc.message;
      else errors.form = String(/** @type {Error} */ (exc).message);
    }
    render();
  };

  const impose = () =>
    submit(() =>
      call("POST", `/api/admin/tables/${id}/sanctions`, {
        violation: form.violation,
        role: form.role,
        seat: Number(form.seat),
        deal: form.deal === "" ? null : Number(form.deal),
        reason: form.reason,
        allow_offline: Boolean(form.allow_offline),
      }),
    );

  /** @param {string} field */
  const errorOf = (field) => (errors[field] ? h("span", { class: "error", role: "alert", "data-field-error": field }, errors[field]) : null);
  /** @param {string} key */
  const set = (key) => (/** @type {Event} */ e) => {
    const target = /** @type {HTMLInputElement} */ (e.target);
    form[key] = target.type === "checkbox" ? (target.checked ? "1" : "") : target.value;
    if (key === "violation") {
      form.role = Object.keys(catalogue.find((c) => c.key === form.violation)?.penalties ?? {})[0] ?? "";
      render();
    }
  };

  const render = () => {
    const entry = catalogue.find((c) => c.key === form.violation);
    draw(
      h(
        "section",
        { class: "admin-game", "data-admin-game": id },
        h("h1", {}, `${t("table")} ${id} · ${t("sanctions_title")}`),
        h(
          "form",
          { class: "panel", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); impose(); } },
          h("label", {}, t("sanction_entry"), h("select", { id: "sanction-violation", onchange: set("violation") }, ...catalogue.map((c) => h("option", { value: c.key, selected: c.key === form.violation }, `${c.key} — ${c.name}${c.online ? "" : ` (${t("sanction_offline")})`}`)))),
          errorOf("violation"),
          h("label", {}, t("sanction_role"), h("select", { id: "sanction-role", onchange: set("role") }, ...Object.entries(entry?.penalties ?? {}).map(([role, p]) => h("option", { value: role, selected: role === form.role }, `${role}: ${/** @type {any} */ (p).text}`)))),
          errorOf("role"),
          h("label", {}, t("sanction_seat"), h("select", { id: "sanction-seat", onchange: set("seat") }, ...names.map((name, seat) => h("option", { value: seat, selected: String(seat) === form.seat }, name || `#${seat}`)))),
          errorOf("seat"),
          h("label", {}, t("sanction_deal"), h("input", { id: "sanction-deal", type: "number", min: 0, value: form.deal, oninput: set("deal") })),
          errorOf("deal"),
          h("label", {}, h("input", { id: "sanction-offline", type: "checkbox", checked: Boolean(form.allow_offline), onchange: set("allow_offline") }), t("sanction_allow_offline")),
          h("label", {}, t("award_reason"), h("input", { id: "sanction-reason", value: form.reason, maxlength: 500, oninput: set("reason") })),
          errorOf("reason"),
          errorOf("damage"),
          errorOf("recipient"),
          errors.form ? h("p", { class: "error", role: "alert" }, errors.form) : null,
          h("button", { type: "submit", class: "primary", "data-action": "impose" }, t("sanction_impose")),
        ),
        h(
          "ol",
          { "data-sanctions": "" },
          ...sanctions.map((s) =>
            h(
              "li",
              { "data-sanction": s.id, "data-revoked": String(Boolean(s.revoked)) },
              `${s.summary} · ${s.admin} · ${new Date(s.at * 1000).toLocaleString()}`,
              s.revoked
                ? ` · ${t("sanction_revoked", { by: s.revoked.by, reason: s.revoked.reason })}`
                : h(
                    "span",
                    {},
                    h("input", { "aria-label": t("award_reason"), "data-revoke-reason": s.id, value: revokeReasons[s.id] ?? "", oninput: (/** @type {Event} */ e) => (revokeReasons[s.id] = /** @type {HTMLInputElement} */ (e.target).value) }),
                    h("button", { type: "button", "data-action": "revoke", "data-sanction": s.id, onclick: () => submit(() => call("POST", `/api/admin/sanctions/${s.id}/revoke`, { reason: revokeReasons[s.id] ?? "" })) }, t("sanction_revoke")),
                  ),
            ),
          ),
        ),
        sheet ? sheetElement(sheet, names) : null,
      ),
      root,
    );
  };
  render();
  load();
  return onLangChange(render);
}
