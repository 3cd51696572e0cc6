/** An invite link (`#/invite/<token>`): the logged-in player is invited to the link's private room (the
 * server records it), then taken to the room's first waiting table with a free seat, or to the lobby. A
 * visitor who is not logged in logs in first and comes back here (app.js). */
import { ApiError, call } from "../api.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const token = params[0];
  let error = "";
  let code = "";
  const render = () =>
    draw(
      h(
        "section",
        { class: "panel", "data-invite": "" },
        h("h1", {}, t("invite_title")),
        error ? h("p", { class: "error", role: "alert", "data-invite-error": code }, error) : h("p", {}, "…"),
        error ? h("a", { class: "button", href: "#/lobby" }, t("lobby")) : null,
      ),
      root,
    );
  render();
  call("POST", `/api/invites/${encodeURIComponent(token)}`).then(
    (/** @type {{room_id: number, table_id: number | null}} */ went) => {
      location.hash = went.table_id ? `#/table/${went.table_id}` : "#/lobby";
    },
    (/** @type {Error} */ exc) => {
      code = exc instanceof ApiError ? exc.code : "";
      const known = { invite_revoked: "invite_revoked", not_found: "invite_unknown", room_closed: "invite_room_closed" };
      const key = /** @type {Record<string, string>} */ (known)[code];
      error = key ? t(key) : t("refused", { msg: exc.message });
      render();
    },
  );
  return onLangChange(render);
}
