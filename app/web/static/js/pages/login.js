/** Log in or register (a new account is a player, logged in at once). */
import { login, register, ApiError } from "../api.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";

/** @param {HTMLElement} root */
export function mount(root) {
  let error = "";
  const render = () => {
    /** @param {(n: string, p: string) => Promise<unknown>} how */
    const submit = (how) => async (/** @type {Event} */ event) => {
      event.preventDefault();
      // The fields are read as typed: a redraw keeps their nodes, so nothing mirrors them.
      const target = /** @type {HTMLElement} */ (event.currentTarget);
      const fields = new FormData(/** @type {HTMLFormElement} */ (target.closest("form")));
      try {
        await how(String(fields.get("name") ?? ""), String(fields.get("password") ?? ""));
        location.hash = sessionStorage.getItem("preferans.after_login") || "#/lobby";
        sessionStorage.removeItem("preferans.after_login");
      } catch (exc) {
        error = exc instanceof ApiError && exc.status === 401 ? t("error_unauthorized") : t("error_generic", { msg: String(/** @type {Error} */ (exc).message) });
        render();
      }
    };
    draw(
      h(
        "form",
        { class: "panel login", onsubmit: submit(login), "aria-labelledby": "login-title" },
        h("h1", { id: "login-title" }, t("login_title")),
        h("label", { for: "login-name" }, t("name")),
        h("input", { id: "login-name", name: "name", autocomplete: "username", required: true, maxlength: 64 }),
        h("label", { for: "login-password" }, t("password")),
        h("input", { id: "login-password", name: "password", type: "password", autocomplete: "current-password", required: true, maxlength: 256 }),
        error ? h("p", { class: "error", role: "alert", "data-error": "" }, error) : null,
        h(
          "div",
          { class: "bid-row" },
          h("button", { type: "submit", class: "primary", "data-action": "login" }, t("login")),
          h("button", { type: "button", "data-action": "register", onclick: submit(register) }, t("register")),
        ),
        h("p", { class: "hint" }, t("login_hint")),
      ),
      root,
    );
  };
  render();
  return onLangChange(render);
}
