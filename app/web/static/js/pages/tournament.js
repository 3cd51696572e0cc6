/** One tournament (RULES §9): players and teams, "my table now", the round clock, each round's tables (their
 * games once finished), the standings (live, final at the end), the judges' decisions and appeals; for its
 * judges (the room's operator, admins): register, draw and start a round, pause, resume, finish, adjust. */
import { call, session } from "../api.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const id = Number(params[0]);
  const user = session();
  /** @type {any} */
  let info = null;
  /** @type {any} */
  let standings = null;
  /** @type {any} */
  let me = null;
  /** @type {any} */
  let judging = { adjustments: [], appeals: [] };
  /** @type {any[]} the calls of my teammates that reach me as captain, with what I may see of them */
  let calls = [];
  /** @type {any[]} players' calls of the judge (judges only) */
  let judgeCalls = [];
  let error = "";
  let stopped = false;
  const form = { player: "", points: "-100", reason: "", appeal: "" };

  const load = async () => {
    try {
      // One request for the whole page: the tournament, the standings, my table and the judges' decisions.
      ({ tournament: info, standings, me, adjustments: judging } = await call("GET", `/api/tournaments/${id}/page`));
      if (info.judge) judgeCalls = await call("GET", `/api/tournaments/${id}/judge-calls`);
      if (info.teams) {
        const mine = /** @type {any[]} */ (await call("GET", "/api/tournaments/captain-calls/mine"));
        calls = await Promise.all(mine.filter((c) => c.open).map((c) => call("GET", `/api/tournaments/captain-calls/${c.id}`).catch(() => c)));
      }
    } catch (exc) {
      error = t("error_generic", { msg: String(/** @type {Error} */ (exc).message) });
    }
    if (!stopped) render();
  };

  /** @param {string} method @param {string} path @param {any} [body] */
  const act = async (method, path, body) => {
    try {
      await call(method, path, body);
      error = "";
    } catch (exc) {
      error = t("error_generic", { msg: String(/** @type {Error} */ (exc).message) });
    }
    await load();
  };

  /** @param {keyof typeof form} key @param {string} [type] */
  const input = (key, type = "text") =>
    h("label", {}, t(`judge_${key}`), h("input", { id: `judge-${key}`, type, value: form[key], oninput: (/** @type {Event} */ e) => (form[key] = /** @type {HTMLInputElement} */ (e.target).value) }));

  /** @param {any} clock */
  const clockText = (clock) => {
    if (!clock) return "";
    const left = Math.max(0, Math.round((clock.ends_at - Date.now()) / 1000));
    return t("round_clock", { m: Math.floor(left / 60), s: String(left % 60).padStart(2, "0") });
  };

  const controls = () =>
    h(
      "div",
      { class: "panel", "data-judge-controls": "" },
      h("h2", {}, t("tournament_direct")),
      h(
        "form",
        { onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); act("POST", `/api/tournaments/${id}/register`, { player: form.player }); } },
        input("player"),
        h("button", { type: "submit", "data-action": "add-player" }, t("tournament_add_player")),
        h("button", { type: "button", "data-action": "withdraw-player", onclick: () => act("POST", `/api/tournaments/${id}/withdraw`, { player: form.player }) }, t("tournament_withdraw")),
      ),
      h(
        "p",
        {},
        h("button", { type: "button", class: "primary", "data-action": "start-round", onclick: () => act("POST", `/api/tournaments/${id}/rounds`) }, t("tournament_start_round")),
        h("button", { type: "button", "data-action": "pause", onclick: () => act("POST", `/api/tournaments/${id}/pause`) }, t("tournament_pause")),
        h("button", { type: "button", "data-action": "resume", onclick: () => act("POST", `/api/tournaments/${id}/resume`) }, t("tournament_resume")),
        h("button", { type: "button", "data-action": "finish", onclick: () => act("POST", `/api/tournaments/${id}/finish`) }, t("tournament_finish")),
      ),
      h(
        "form",
        {
          "data-adjust": "",
          onsubmit: (/** @type {Event} */ e) => {
            e.preventDefault();
            act("POST", `/api/tournaments/${id}/adjustments`, { player: form.player, points: Number(form.points), reason: form.reason });
          },
        },
        input("points", "number"),
        input("reason"),
        h("button", { type: "submit", "data-action": "adjust" }, t("judge_adjust")),
      ),
    );

  /** @param {any} rnd */
  const roundElement = (rnd) =>
    h(
      "li",
      { key: rnd.number, "data-round": rnd.number, "data-status": rnd.status },
      h("h3", {}, `${t("round")} ${rnd.number} · ${t(`round_status_${rnd.status}`)}`, rnd.status === "playing" ? h("span", { "data-round-clock": "" }, ` · ${clockText(rnd.clock)}`) : null),
      rnd.byes.length ? h("p", {}, `${t("bye")}: ${rnd.byes.join(", ")}`) : null,
      h(
        "ul",
        {},
        ...rnd.tables.map((/** @type {any} */ table) =>
          h(
            "li",
            { key: table.table_id, "data-round-table": table.table_id, "data-status": table.status },
            h("a", { href: table.status === "playing" || table.status === "waiting" ? `#/table/${table.table_id}` : `#/games/${table.table_id}` }, `${t("table")} ${table.number}`),
            ` · ${table.players.map((/** @type {any} */ p) => p ?? "🤖").join(", ")} · ${t(`status_${table.status}`)}`,
            table.end?.last_deal ? ` · ${t("round_end_mark", { n: table.end.last_deal })}` : "",
            table.settlement?.result ? ` · ${table.settlement.result.join(" / ")}` : "",
          ),
        ),
      ),
    );

  /** A teammate's call (§9.6): his hand and the auction for 20 s, and one suggested bid. @param {any} c */
  const captainCall = (c) =>
    h(
      "div",
      { class: "panel banner", key: c.id, "data-captain-call": c.id },
      h("p", {}, t("captain_call_from", { name: c.caller })),
      c.view ? h("p", { "data-captain-hand": "" }, c.view.hand.join(" ")) : null,
      c.view ? h("p", { "data-captain-auction": "" }, c.view.auction.map((/** @type {any} */ a) => a[1] ?? t("pass")).join(" · ")) : null,
      c.suggestion
        ? h("p", {}, t("captain_sent", { bid: c.suggestion }))
        : h(
            "p",
            {},
            ...(c.suggestions ?? []).map((/** @type {string} */ bid) =>
              h("button", { type: "button", "data-suggest": bid, onclick: () => act("POST", `/api/tournaments/captain-calls/${c.id}/suggest`, { bid }) }, bid),
            ),
          ),
    );

  const standingsTable = () =>
    h(
      "table",
      { class: "standings", "data-standings": standings?.final ? "final" : "live" },
      h("caption", {}, t(standings?.final ? "standings_final" : "standings_live")),
      h("thead", {}, h("tr", {}, ...["place", "player", "score", "positive_rounds", "best", "adjustments"].map((k) => h("th", {}, t(`standings_${k}`))))),
      h(
        "tbody",
        {},
        ...(standings?.standings ?? []).map((/** @type {any} */ r) =>
          h(
            "tr",
            { key: r.player, "data-standing": r.player, "data-score": r.score, "data-provisional": r.provisional ? "" : undefined },
            h("td", {}, r.place),
            h("td", {}, r.player, r.provisional ? ` (${t("provisional")})` : ""),
            h("td", {}, String(r.score)),
            h("td", {}, String(r.positive_rounds)),
            h("td", {}, r.best === null ? "—" : String(r.best)),
            h("td", {}, String(r.adjustments)),
          ),
        ),
      ),
    );

  const decisions = () =>
    h(
      "ul",
      { "data-decisions": "" },
      ...judging.adjustments.map((/** @type {any} */ a) => {
        const appeals = judging.appeals.filter((/** @type {any} */ x) => x.adjustment === a.id);
        return h(
          "li",
          { key: a.id, "data-decision": a.id },
          `${a.player}: ${a.points} · ${a.judge} · ${a.reason}`,
          ...appeals.map((/** @type {any} */ x) => h("span", { "data-appeal": x.id }, ` · ${t("appeal")}: ${x.verdict ? t(`verdict_${x.verdict}`) : t("appeal_pending")}`)),
          a.player === user?.name && !appeals.length
            ? h(
                "form",
                { onsubmit: (/** @type {Event} */ e) => { e.preventDefault(); act("POST", `/api/tournaments/${id}/adjustments/${a.id}/appeal`, { reason: form.appeal }); } },
                input("appeal"),
                h("button", { type: "submit", "data-action": "appeal" }, t("appeal_file")),
              )
            : null,
        );
      }),
    );

  const render = () => {
    if (!info) {
      draw(h("section", {}, error ? h("p", { class: "error", role: "alert" }, error) : t("loading")), root);
      return;
    }
    draw(
      h(
        "section",
        { class: "tournament", "data-tournament-page": id, "data-status": info.status },
        h("h1", {}, `${info.name} · ${t(`tournament_status_${info.status}`)}`),
        error ? h("p", { class: "error", role: "alert" }, error) : null,
        me?.table_id
          ? h("p", { class: "banner", "data-my-table": me.table_id }, h("a", { href: `#/table/${me.table_id}` }, t("my_table_now", { round: me.round, n: me.number })))
          : me?.bye
            ? h("p", { "data-my-bye": "" }, t("my_bye"))
            : null,
        info.status === "registration" && !info.players.some((/** @type {any} */ p) => p.player === user?.name)
          ? h("button", { type: "button", class: "primary", "data-action": "register", onclick: () => act("POST", `/api/tournaments/${id}/register`, {}) }, t("tournament_register"))
          : null,
        ...calls.map(captainCall),
        info.judge ? controls() : null,
        info.judge && judgeCalls.length
          ? h(
              "ul",
              { class: "panel", "data-judge-calls": "" },
              ...judgeCalls.map((/** @type {any} */ c) =>
                h(
                  "li",
                  { key: c.id, "data-judge-call": c.id, "data-answered": c.answered_by ? "" : undefined },
                  h("a", { href: `#/table/${c.table_id}` }, `${t("table")} ${c.table_id}`),
                  ` · ${c.player}: ${c.words}`,
                  c.answered_by
                    ? ` · ${c.answered_by}: ${c.answer}`
                    : h("button", { type: "button", "data-action": "answer-judge-call", onclick: () => act("POST", `/api/tournaments/judge-calls/${c.id}/answer`, { words: form.reason || t("judge_on_the_way") }) }, t("judge_answer")),
                ),
              ),
            )
          : null,
        h("h2", {}, t("standings")),
        standingsTable(),
        standings?.teams ? h("ul", { "data-teams": "" }, ...standings.teams.map((/** @type {any} */ x) => h("li", { key: x.team }, `${x.place}. ${x.team}: ${x.score}`))) : null,
        h("h2", {}, t("rounds")),
        h("ul", { class: "rounds" }, ...info.round_list.map(roundElement)),
        h("h2", {}, t("tournament_players")),
        h("ul", { "data-players": "" }, ...info.players.map((/** @type {any} */ p) => h("li", { key: p.player, "data-player": p.player }, p.player, p.team ? ` · ${p.team}${p.role ? ` (${t(`team_${p.role}`)})` : ""}` : "", p.withdrawn ? ` · ${t("withdrawn")}` : ""))),
        h("h2", {}, t("decisions")),
        decisions(),
      ),
      root,
    );
  };
  load();
  // The round clock and the tables' states follow the server: read again every few seconds.
  const timer = setInterval(load, 2000);
  const off = onLangChange(render);
  return () => {
    stopped = true;
    clearInterval(timer);
    off();
  };
}
