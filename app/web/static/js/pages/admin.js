/** The administrators' archive: interrupted deals found by filter (room, table, player, dates, status), paged. */
import { call } from "../api.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";

const PAGE = 20;

/** @param {HTMLElement} root */
export function mount(root) {
  /** @type {Record<string, string>} */
  const filters = { room: "", table: "", player: "", since: "", until: "", status: "awaiting" };
  let offset = 0;
  /** @type {any} */
  let found = null;
  let error = "";

  const load = async () => {
    const query = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    for (const [key, value] of Object.entries(filters)) {
      if (!value) continue;
      // Dates are typed as days; the server takes epoch seconds.
      query.set(key, key === "since" || key === "until" ? String(Date.parse(value) / 1000 + (key === "until" ? 86399 : 0)) : value);
    }
    try {
      found = await call("GET", `/api/admin/archive?${query}`);
      error = "";
    } catch (exc) {
      error = t("error_generic", { msg: String(/** @type {Error} */ (exc).message) });
    }
    render();
  };

  /** @param {string} key @param {string} type */
  const field = (key, type = "text") =>
    h(
      "label",
      {},
      t(`archive_${key}`),
      h("input", {
        id: `archive-${key}`,
        type,
        value: filters[key],
        oninput: (/** @type {Event} */ e) => (filters[key] = /** @type {HTMLInputElement} */ (e.target).value),
      }),
    );

  const render = () => {
    const status = h(
      "select",
      { id: "archive-status", onchange: (/** @type {Event} */ e) => (filters.status = /** @type {HTMLSelectElement} */ (e.target).value) },
      ...["", "awaiting", "awarded"].map((value) =>
        h("option", { value, selected: filters.status === value }, t(value ? `archive_status_${value}` : "archive_status_any")),
      ),
    );
    draw(
      h(
        "section",
        { class: "admin", "data-admin-archive": "" },
        h("h1", {}, t("archive_title")),
        h(
          "form",
          {
            class: "panel filters",
            onsubmit: (/** @type {Event} */ e) => {
              e.preventDefault();
              offset = 0;
              load();
            },
          },
          field("room", "number"),
          field("table", "number"),
          field("player"),
          field("since", "date"),
          field("until", "date"),
          h("label", {}, t("archive_status"), status),
          h("button", { type: "submit", class: "primary", "data-action": "filter" }, t("archive_find")),
        ),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        found ? h("p", { "data-archive-total": found.total }, t("archive_total", { n: found.total })) : null,
        h(
          "table",
          { class: "archive" },
          h("thead", {}, h("tr", {}, ...["archive_deal", "archive_room", "archive_table", "archive_players", "archive_reason", "archive_status"].map((k) => h("th", {}, t(k))))),
          h(
            "tbody",
            {},
            ...(found?.items ?? []).map((/** @type {any} */ d) =>
              h(
                "tr",
                { "data-archive-deal": d.id, "data-status": d.status },
                h("td", {}, h("a", { href: `#/admin/deals/${d.id}` }, `${t("deal_n", { n: d.deal })} · ${new Date(d.at * 1000).toLocaleString()}`)),
                h("td", {}, String(d.room)),
                h("td", {}, String(d.table)),
                h("td", {}, d.players.map((/** @type {string|null} */ p) => p ?? "—").join(", ")),
                h("td", {}, d.reason),
                h("td", {}, t(`archive_status_${d.status}`)),
              ),
            ),
          ),
        ),
        h(
          "div",
          { class: "bid-row" },
          h("button", { type: "button", disabled: offset === 0, onclick: () => { offset = Math.max(0, offset - PAGE); load(); } }, t("archive_prev")),
          h("button", { type: "button", disabled: !found || offset + PAGE >= found.total, onclick: () => { offset += PAGE; load(); } }, t("archive_next")),
        ),
      ),
      root,
    );
  };
  render();
  load();
  return onLangChange(render);
}
