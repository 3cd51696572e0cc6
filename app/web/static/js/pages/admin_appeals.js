/** Administrators: the tournaments' appeals (RULES §9.5), heard after the tournament by an administrator other
 * than the judge: uphold the decision or change its points (0 annuls it). */
import { call } from "../api.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";

/** @param {HTMLElement} root */
export function mount(root) {
  /** @type {any[]} */
  let appeals = [];
  let error = "";
  /** @type {Record<number, {points: string, note: string}>} */
  const forms = {};

  const load = async () => {
    try {
      appeals = await call("GET", "/api/tournaments/appeals/open");
      error = "";
    } catch (exc) {
      error = t("error_generic", { msg: String(/** @type {Error} */ (exc).message) });
    }
    render();
  };

  /** @param {any} appeal @param {string} verdict */
  const hear = async (appeal, verdict) => {
    const form = forms[appeal.id];
    try {
      await call("POST", `/api/tournaments/appeals/${appeal.id}/hear`, {
        verdict,
        points: verdict === "decision_changed" ? Number(form.points) : null,
        note: form.note,
      });
      error = "";
    } catch (exc) {
      error = t("error_generic", { msg: String(/** @type {Error} */ (exc).message) });
    }
    await load();
  };

  /** @param {any} appeal */
  const item = (appeal) => {
    const form = (forms[appeal.id] ??= { points: "0", note: "" });
    return h(
      "li",
      { key: appeal.id, class: "panel", "data-appeal": appeal.id, "data-verdict": appeal.verdict ?? "" },
      h("p", {}, `${appeal.tournament.name} · ${appeal.decision.player}: ${appeal.decision.points} (${appeal.decision.judge}: ${appeal.decision.reason})`),
      h("p", {}, `${t("appeal")}: ${appeal.reason}`),
      appeal.verdict
        ? h("p", {}, `${t(`verdict_${appeal.verdict}`)} · ${appeal.heard_by}${appeal.points !== null ? ` · ${appeal.points}` : ""} · ${appeal.note}`)
        : h(
            "form",
            { onsubmit: (/** @type {Event} */ e) => e.preventDefault() },
            h("label", {}, t("judge_points"), h("input", { type: "number", "data-field": "points", value: form.points, oninput: (/** @type {Event} */ e) => (form.points = /** @type {HTMLInputElement} */ (e.target).value) })),
            h("label", {}, t("hearing_note"), h("input", { "data-field": "note", value: form.note, oninput: (/** @type {Event} */ e) => (form.note = /** @type {HTMLInputElement} */ (e.target).value) })),
            h("button", { type: "button", "data-action": "uphold", onclick: () => hear(appeal, "decision_upheld") }, t("verdict_decision_upheld")),
            h("button", { type: "button", "data-action": "change", onclick: () => hear(appeal, "decision_changed") }, t("verdict_decision_changed")),
          ),
    );
  };

  const render = () =>
    draw(
      h(
        "section",
        { class: "admin", "data-admin-appeals": "" },
        h("h1", {}, t("appeals")),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        appeals.length ? null : h("p", {}, t("no_appeals")),
        h("ul", {}, ...appeals.map(item)),
      ),
      root,
    );
  load();
  return onLangChange(render);
}
