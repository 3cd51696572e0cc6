/** One interrupted deal for the judge: the record drawn as cards, clocks, who ran out; the solver's
 * suggestion; the award form with the resulting sheet previewed before it is confirmed; the awards given. */
import { call, ApiError } from "../api.js";
import { bidText, cardElement, sortHand } from "../cards.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";
import { sheetElement, settlementElement } from "../sheet.js";

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const id = Number(params[0]);
  /** @type {any} */
  let deal = null;
  /** @type {any} */
  let suggestion = null;
  /** @type {any} */
  let preview = null;
  /** @type {Record<string, string>} */
  let errors = {};
  let notice = "";
  /** @type {Record<string, string>} */
  const form = { contract: "", reason: "", void: "" };
  /** @type {Record<string, string>} */
  const tricks = {};

  const load = async () => {
    deal = await call("GET", `/api/admin/archive/${id}`);
    render();
    suggestion = await call("GET", `/api/admin/archive/${id}/suggestion`).catch((exc) => ({ kind: "none", note: String(exc.message) }));
    const r = deal.record;
    if (suggestion.declarer_tricks !== null && suggestion.declarer_tricks !== undefined && r.declarer !== null) {
      // The form starts from the suggestion: the declarer's tricks, the rest to the first defender.
      const defenders = r.active.filter((/** @type {number} */ s) => s !== r.declarer);
      tricks[String(r.declarer)] = String(suggestion.declarer_tricks);
      tricks[String(defenders[0])] = String(10 - suggestion.declarer_tricks);
      tricks[String(defenders[1])] = "0";
      if (!r.contract && suggestion.contract) form.contract = suggestion.contract;
    }
    render();
  };

  const body = () => ({
    tricks: form.void ? null : Object.fromEntries(Object.entries(tricks).map(([seat, n]) => [seat, Number(n)])),
    contract: form.contract || null,
    reason: form.reason,
    revise: deal.status === "awarded",
  });

  /** @param {"preview" | "confirm"} what */
  const send = async (what) => {
    errors = {};
    notice = "";
    try {
      if (what === "preview") {
        preview = await call("POST", `/api/admin/archive/${id}/preview`, body());
      } else {
        const done = await call("POST", `/api/admin/interrupted/${id}/award`, body());
        notice = t("award_done", { n: done.revision });
        preview = null;
        deal = await call("GET", `/api/admin/archive/${id}`);
      }
    } catch (exc) {
      if (exc instanceof ApiError && exc.status === 422) errors[exc.field ?? "form"] = exc.message;
      else errors.form = String(/** @type {Error} */ (exc).message);
    }
    render();
  };

  /** @param {string} field */
  const errorOf = (field) => (errors[field] ? h("span", { class: "error", role: "alert", "data-field-error": field }, errors[field]) : null);

  const render = () => {
    if (!deal) return draw(h("p", {}, "…"), root);
    const r = deal.record;
    const name = (/** @type {number} */ s) => deal.players[s] ?? `#${s}`;
    const cards = (/** @type {string[]} */ list) => sortHand(list).map((c) => cardElement(c));
    for (const seat of r.active) if (!(String(seat) in tricks)) tricks[String(seat)] = String(r.taken[String(seat)] ?? 0);
    draw(
      h(
        "section",
        { class: "admin-deal", "data-admin-deal": id, "data-deal-status": deal.status },
        h("h1", {}, `${t("table")} ${deal.table} · ${t("deal_n", { n: deal.deal })} · ${t(`archive_status_${deal.status}`)}`),
        h("p", {}, `${t("archive_reason")}: ${deal.reason}`),
        h("p", {}, h("a", { href: `#/admin/tables/${deal.table}`, "data-link": "sanctions" }, t("sanctions_title"))),
        h("h2", {}, t("judge_hands")),
        ...Object.entries(r.hands).map(([seat, hand]) =>
          h("div", { class: "reveal-hand", "data-judge-hand": seat }, h("span", { class: "label" }, `${name(Number(seat))}${Number(seat) === r.declarer ? ` (${t("judge_declarer")})` : ""}`), ...cards(/** @type {string[]} */ (hand))),
        ),
        h("div", { class: "reveal-hand", "data-judge-talon": "" }, h("span", { class: "label" }, t("judge_talon")), ...cards(r.talon)),
        r.discard.length ? h("div", { class: "reveal-hand", "data-judge-discard": "" }, h("span", { class: "label" }, t("judge_discard")), ...cards(r.discard)) : null,
        h("p", { "data-judge-auction": "" }, `${t("judge_auction")}: `, r.auction.map((/** @type {any[]} */ [seat, bid]) => `${name(seat)} ${bid ? bidText(bid) : t("judge_pass")}`).join(" · ")),
        h("p", {}, `${t("judge_contract")}: ${r.contract ? bidText(r.contract) : t("judge_none")} · ${t("judge_calls")}: ${r.calls.map((/** @type {any[]} */ [s, c]) => `${name(s)} ${c}`).join(", ") || "—"}`),
        h(
          "ol",
          { class: "judge-tricks" },
          ...[...r.tricks, ...(r.trick.length ? [r.trick] : [])].map((/** @type {any[]} */ trick, i) =>
            h("li", { "data-judge-trick": i }, ...trick.map(([seat, card]) => cardElement(card, { owner: seat >= 0 ? name(seat) : t("judge_talon") }))),
          ),
        ),
        h(
          "p",
          { "data-judge-clocks": "" },
          `${t("judge_ran_out")}: `,
          deal.ran_out.length ? deal.ran_out.map((/** @type {any} */ o) => `${name(o.seat)} ${new Date(o.at * 1000).toLocaleTimeString()}`).join(", ") : "—",
        ),
        deal.clock?.seats
          ? h("ul", {}, ...deal.clock.seats.map((/** @type {any} */ c, /** @type {number} */ s) => h("li", { "data-judge-clock": s }, `${name(s)}: ${JSON.stringify(c)}`)))
          : h("pre", { "data-judge-clocks-raw": "" }, JSON.stringify(deal.clock)),
        h(
          "aside",
          { class: "panel suggestion", "data-suggestion": suggestion?.kind ?? "loading" },
          h("h2", {}, t("suggestion_title")),
          suggestion
            ? h(
                "p",
                {},
                suggestion.kind === "none"
                  ? suggestion.note
                  : t("suggestion_text", {
                      contract: suggestion.contract ? bidText(suggestion.contract) : "—",
                      tricks: suggestion.declarer_tricks ?? "?",
                      discard: (suggestion.discard ?? []).join(" "),
                    }),
                suggestion.complete === false ? ` (${t("suggestion_partial")})` : "",
              )
            : h("p", {}, t("suggestion_wait")),
        ),
        h(
          "form",
          { class: "panel award", onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); send("preview"); } },
          h("h2", {}, deal.status === "awarded" ? t("award_revise") : t("award_title")),
          h("label", {}, h("input", { type: "checkbox", id: "award-void", checked: Boolean(form.void), onchange: (/** @type {Event} */ e) => { form.void = /** @type {HTMLInputElement} */ (e.target).checked ? "1" : ""; } }), t("award_void")),
          ...r.active.map((/** @type {number} */ seat) =>
            h("label", {}, `${name(seat)}: `, h("input", { type: "number", min: 0, max: 10, "data-award-seat": seat, value: tricks[String(seat)], oninput: (/** @type {Event} */ e) => (tricks[String(seat)] = /** @type {HTMLInputElement} */ (e.target).value) })),
          ),
          errorOf("tricks"),
          r.contract ? null : h("label", {}, t("award_contract"), h("input", { id: "award-contract", value: form.contract, oninput: (/** @type {Event} */ e) => (form.contract = /** @type {HTMLInputElement} */ (e.target).value) })),
          errorOf("contract"),
          h("label", {}, t("award_reason"), h("input", { id: "award-reason", value: form.reason, maxlength: 500, oninput: (/** @type {Event} */ e) => (form.reason = /** @type {HTMLInputElement} */ (e.target).value) })),
          errorOf("reason"),
          errorOf("revise"),
          errorOf("deal"),
          errors.form ? h("p", { class: "error", role: "alert" }, errors.form) : null,
          h(
            "div",
            { class: "bid-row" },
            h("button", { type: "submit", "data-action": "preview" }, t("award_preview")),
            h("button", { type: "button", class: "primary", "data-action": "confirm", disabled: !preview, onclick: () => send("confirm") }, t("award_confirm")),
          ),
          notice ? h("p", { role: "status", "data-award-notice": "" }, notice) : null,
        ),
        preview
          ? h(
              "section",
              { "data-preview": preview.status },
              h("h2", {}, t("award_preview_title")),
              sheetElement(preview.sheet, deal.players.map((/** @type {any} */ p) => p ?? "")),
              preview.settlement ? settlementElement(preview.settlement, deal.players.map((/** @type {any} */ p) => p ?? "")) : null,
            )
          : null,
        h("h2", {}, t("award_history")),
        h(
          "ol",
          { "data-award-history": "" },
          ...deal.awards.map((/** @type {any} */ a) =>
            h("li", { "data-award-revision": a.revision }, `#${a.revision} · ${a.admin} · ${new Date(a.at * 1000).toLocaleString()} · ${a.reason} · ${a.result.kind ?? a.result.type ?? ""}`),
          ),
        ),
        deal.settlement ? settlementElement(deal.settlement, deal.players.map((/** @type {any} */ p) => p ?? "")) : null,
      ),
      root,
    );
  };
  render();
  load();
  return onLangChange(render);
}
