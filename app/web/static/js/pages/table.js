/**
 * The table page: one socket; each new state redraws the panels by difference (dom.js), so the focused
 * card, an unfolded ladder and the live regions keep their nodes from frame to frame; the clocks tick
 * between frames on their own.
 */
import { ApiError, call, session } from "../api.js";
import { bidText } from "../cards.js";
import { Clocks } from "../clocks.js";
import { draw, h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";
import { tableRatings } from "../ratings.js";
import { sheetElement, settlementElement } from "../sheet.js";
import { TableSocket } from "../socket.js";
import { auctionElement, biddingElement } from "../table/bidding.js";
import { captainElement } from "../table/captain.js";
import { judgeCallElement } from "../table/judgecall.js";
import { claimElement } from "../table/claim.js";
import { ChatStore, chatElement } from "../table/chat.js";
import { TurnAlerts, alertSettings, turnBanner } from "../table/glance.js";
import { dealEndElement } from "../table/dealend.js";
import { declarerElement } from "../table/declarer.js";
import { handElement } from "../table/hand.js";
import { lifeElement } from "../table/proposals.js";
import { seatElement } from "../table/seats.js";
import { centreElement } from "../table/trick.js";
import { whistingElement } from "../table/whisting.js";

/** @typedef {import("../table/model.js").Model} Model */
/** @typedef {import("../socket.js").TableState} TableState */
/** @typedef {import("../protocol").SnapshotMessage} SnapshotMessage */
/** @typedef {import("../protocol").UpdateMessage} UpdateMessage */

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const tableId = Number(params[0]);
  const user = session();
  if (!user) return;
  const clocks = new Clocks();
  const title = document.title;
  /** The page's own state, beside the socket's table state: what the player chose and was told. */
  const ui = {
    /** @type {Set<string>} the cards chosen for the discard */
    selected: new Set(),
    noTalonOpen: false,
    /** @type {Model["lastDeal"]} */
    lastDeal: null,
    notice: "",
    noticeCode: "", // the server's code behind the notice (data-notice-code: tests and styles read it)
    wasMyTurn: false,
    substitute: "", // the name typed for "replace me by"
    chatDraft: "", // the chat message being typed
    sheetLarge: false, // the sheet shown large across the page
    /** @type {string | null} a touch screen's card tapped once (a second tap plays it) */
    armed: null,
  };
  const chat = new ChatStore(tableId, () => render());
  const alerts = new TurnAlerts();

  const socket = new TableSocket(tableId, {
    onState: (state, frame) => {
      if (frame.type === "update" && state.seat === null) {
        // Seated from another tab or the lobby meanwhile: a snapshot brings this connection's seat.
        const seated = frame.events.some((e) => e.kind === "seated" && e.data.user === user.name);
        if (seated) socket.resync();
      }
      if (frame.type === "snapshot") chat.load(); // on (re)connection: what was said meanwhile
      if (frame.type === "snapshot" || frame.type === "update") {
        noteDealEnd(state, frame);
        clocks.update(state.clock, state.receivedAt);
        if (frame.type === "update") {
          ui.notice = ui.noticeCode = "";
          ui.armed = null;
        }
      } else if (frame.type === "clock") {
        clocks.update(state.clock, state.receivedAt);
      }
      render();
    },
    onLink: () => render(),
    onChat: (frame) => chat.receive(frame),
    onRefused: (code, message) => {
      ui.noticeCode = code;
      ui.notice = code === "offline" ? t("offline_refused") : t("refused", { msg: message || code });
      render();
    },
    onFatal: (code, message) => {
      if (code === "unauthorized") {
        // Logged out, expired or disabled: log in again, then come back to this table.
        sessionStorage.setItem("preferans.after_login", location.hash);
        location.hash = "#/login";
        return;
      }
      ui.noticeCode = code;
      ui.notice = code === "private_room" ? t("private_room") : t("error_generic", { msg: message || code });
      render();
    },
  });
  // Debugging and test hook (docs/web.md): drop the socket as a failing network would.
  /** @type {any} */ (window).preferans = { dropSocket: () => socket.drop(), socket };

  /**
   * Keep the finished deal's record and result: an update bundles a player's last card with the server's
   * next shuffle, so the deal's end comes as a `deal_over` event (a snapshot taken at the very end shows
   * it in its view). The sheet's line for it is the last deal line of the sheet that came with it.
   * @param {TableState} state @param {SnapshotMessage | UpdateMessage} frame
   */
  function noteDealEnd(state, frame) {
    const view = state.view;
    const history = /** @type {any[]} */ (frame.sheet?.history ?? []);
    const lines = history.filter((line) => line.result);
    const lineFor = (/** @type {any} */ result) => {
      const line = lines[lines.length - 1];
      return line && line.result.type === result.type ? line : null;
    };
    // The timeout penalty (RULES §5.8) is its own line, written after the deal that ran out.
    const last = history.lastIndexOf(lines[lines.length - 1]);
    const after = history.slice(last + 1).filter((line) => line.kind === "timeout");
    const ends = /** @type {any[]} */ (frame.type === "update" ? frame.events : []).filter((e) => e.kind === "deal_over");
    const end = ends[ends.length - 1];
    if (end) {
      // The view is already the next deal's unless the table stopped at this deal's end.
      const next = view && !["deal_over", "awaiting_deal", "interrupted"].includes(view.phase);
      const dealNumber = (view?.deal_number ?? 1) - (next ? 1 : 0);
      ui.lastDeal = { number: dealNumber, result: end.data.result, record: end.data.record, line: lineFor(end.data.result), after };
    } else if (view?.phase === "deal_over" && view.result && ui.lastDeal?.number !== view.deal_number) {
      ui.lastDeal = { number: view.deal_number, result: view.result, record: view.record, line: lineFor(view.result), after };
    }
    if (view?.phase !== "discard") ui.selected.clear(); // a selection only lives through one discard
  }

  /**
   * A tournament round's end (RULES §9.3), as the sheet records it: "after the current deal — 4 more deals"
   * with the last dealer marked, or a straggler's end after its deal in progress.
   * @param {TableState | null} state
   */
  function roundEnd(state) {
    const sheet = /** @type {any} */ (state?.sheet);
    if (!sheet || sheet.last_deal == null) return null;
    const dealer = sheet.last_dealer == null ? null : names()[sheet.last_dealer];
    return h(
      "div",
      { class: "banner warn", "data-round-end": sheet.last_deal, "data-last-dealer": sheet.last_dealer ?? "" },
      dealer === null ? t("round_end_straggler", { n: sheet.last_deal }) : t("round_end_announced", { n: sheet.last_deal, dealer }),
    );
  }

  function names() {
    const seats = socket.state?.seats ?? [];
    return seats.map((s) => s.user ?? t("free_seat"));
  }

  function render() {
    const state = socket.state;
    draw(view(state), root);
    const mine = Boolean(state && state.legal.length && state.status === "playing");
    if (mine && !ui.wasMyTurn) alerts.yourTurn(`${t("your_turn")} — ${t("table")} ${tableId}`);
    ui.wasMyTurn = mine;
    document.title = mine ? `● ${t("your_turn")} — ${title}` : title;
  }

  /**
   * The page. Its live regions (the alert for a dropped socket or a refusal before any state, the status
   * for a refused move, whose turn it is, the trick) stay in place and only their text changes, so a
   * screen reader announces each change once.
   * @param {TableState | null} state
   */
  function view(state) {
    const paused = state?.paused && state.clock?.frozen ? state.paused : null;
    const banner =
      socket.link === "reconnecting"
        ? h("div", { class: "banner warn", "data-banner": "reconnecting" }, t("reconnecting"))
        : paused
          ? h("div", { class: "banner warn", "data-banner": `paused-${paused}` }, t(`paused_${paused}`))
          : null;
    const notice = ui.notice ? h("div", { class: "banner", "data-notice": "", "data-notice-code": ui.noticeCode || undefined }, ui.notice) : null;
    return h(
      "div",
      {
        class: "table-page",
        "data-table": tableId,
        "data-version": state?.v,
        "data-actions": state ? state.actions ?? 0 : undefined,
        "data-connection": socket.link,
        "data-my-seat": state ? state.seat ?? "" : undefined,
      },
      h("div", { class: "alerts", role: "alert" }, banner, state ? null : notice, roundEnd(state)),
      h("div", { class: "notices", role: "status" }, state ? notice : null),
      state ? tableView(state) : h("p", {}, "…"),
    );
  }

  /** @param {TableState} state */
  function tableView(state) {
    /** @type {Model} */
    const model = {
      state,
      names: names(),
      mySeat: state.seat,
      legal: state.status === "playing" ? state.legal : [],
      canAct: socket.canSend,
      act: (action) => {
        if (socket.act(action)) render();
      },
      selected: ui.selected,
      toggle: (card) => {
        if (ui.selected.has(card)) ui.selected.delete(card);
        else if (ui.selected.size < 2) ui.selected.add(card);
        render();
      },
      lastDeal: ui.lastDeal,
      noTalonOpen: ui.noTalonOpen,
      setNoTalonOpen: (open) => {
        if (open === ui.noTalonOpen) return;
        ui.noTalonOpen = open;
        render();
      },
      clocks,
      touch: matchMedia("(pointer: coarse)").matches,
      armed: ui.armed,
      arm: (card) => {
        ui.armed = card;
        render();
      },
      sit: (seat) => seatCall("sit", { seat }),
      leave: () => seatCall("leave", {}),
    };
    const v = state.view;
    const deal = v?.deal;
    const seatCount = state.seats.length;
    const order = Array.from({ length: seatCount }, (_, i) => ((state.seat ?? 0) + i) % seatCount);
    const others = order.filter((s) => s !== state.seat);
    const myHand = state.seat !== null && deal?.hands?.[String(state.seat)];
    const playing = state.status === "playing" && v;
    const turnOf =
      playing && v.to_act !== null && v.to_act !== undefined
        ? v.to_act === state.seat
          ? t("your_turn")
          : t("turn_of", { name: model.names[v.to_act] ?? "" })
        : "";
    const status = h(
      "div",
      { class: "status-line" },
      h("span", { class: `status ${state.status}`, "data-status": state.status }, t(`status_${state.status}`)),
      v ? h("span", {}, t("deal_n", { n: v.deal_number }), " · ", t(`phase_${v.phase}`)) : h("span", {}, t("waiting_players")),
      deal?.contract ? h("span", { class: "contract" }, `${t("contract")}: ${bidText(deal.contract)}`) : null,
      state.seat === null ? h("span", { class: "badge" }, t("spectator")) : null,
      h("span", { class: "turn-of", "aria-live": "polite" }, turnOf),
      ratings.strip(model.names, state.status === "playing" && state.legal.length ? `${state.v}` : undefined),
    );
    const over = state.outcome
      ? h(
          "section",
          { class: "panel game-over", "data-game-over": state.outcome.reason },
          h("h3", {}, `${t("game_over")}: ${t(`reason_${state.outcome.reason}`)}`),
          state.outcome.settlement ? settlementElement(state.outcome.settlement, model.names) : null,
        )
      : null;
    // Every panel keeps its slot (null when absent), so a panel coming or going never shifts the others.
    const layout = h(
      "div",
      { class: "table-layout" },
      h(
        "div",
        { class: "felt" },
        turnBanner(Boolean(playing && v.to_act === state.seat && state.seat !== null), v?.phase ?? ""),
        h("div", { class: "opponents" }, ...others.map((s) => seatElement(model, s))),
        centreElement(model),
        playing && (v.phase === "bidding" || v.phase === "dealer_invitation") ? biddingElement(model) : null,
        playing && state.seat !== null ? captainElement(tableId, state, render) : null,
        playing && state.seat !== null ? judgeCallElement(tableId, state, render) : null,
        playing ? declarerElement(model) : null,
        playing ? whistingElement(model) : null,
        playing ? claimElement(model) : null,
        state.seat !== null ? seatElement(model, state.seat) : null,
        myHand ? handElement(model, /** @type {number} */ (state.seat), myHand) : null,
      ),
      h(
        "aside",
        { class: "side" },
        lifeElement({
          life: state.life ?? null,
          status: state.status,
          mySeat: state.seat,
          myName: user?.name ?? "",
          names: model.names,
          substitute: ui.substitute,
          mayJoin: mayJoin(state),
          setSubstitute: (name) => {
            ui.substitute = name;
            render();
          },
          send: lifeCall,
        }),
        dealEndElement(model),
        auctionElement(model),
        state.sheet && !ui.sheetLarge ? sheetElement(state.sheet, model.names, { mini: true }) : null,
        state.sheet
          ? h("button", { type: "button", "data-action": "sheet-large", "aria-pressed": String(ui.sheetLarge), onclick: () => { ui.sheetLarge = !ui.sheetLarge; render(); } }, t(ui.sheetLarge ? "sheet_small" : "sheet_large"))
          : null,
        alertSettings(alerts, render),
        chat.loaded ? chatElement(chat, state, { draft: ui.chatDraft, setDraft: (text) => { ui.chatDraft = text; render(); } }) : null,
      ),
    );
    // The game's end spans the page (its settlement never squeezed into the side column: issue 22 §1.4).
    const large =
      state.sheet && ui.sheetLarge
        ? h(
            "section",
            { class: "sheet-large", "data-sheet-large": "", "aria-label": t("sheet") },
            h("button", { type: "button", class: "sheet-close", "data-action": "sheet-close", onclick: () => { ui.sheetLarge = false; render(); } }, t("close")),
            sheetElement(state.sheet, model.names),
          )
        : null;
    return [status, over, large, layout];
  }

  /**
   * RULES §7.7: a registered user watching a table of three may ask to join it as a fourth when its
   * conventions allow it (`fourth_may_join`) and it is no tournament's; the server decides the rest.
   * @param {TableState} state
   */
  function mayJoin(state) {
    const conventions = state.sheet?.conventions ?? {};
    const live = state.status === "playing" || state.status === "adjourned";
    return Boolean(user) && state.seat === null && live && state.seats.length === 3 && conventions.fourth_may_join === true && !conventions.tournament;
  }

  /** Sit down or leave (REST), then take the connection's new seat from a fresh snapshot. */
  async function seatCall(/** @type {string} */ what, /** @type {any} */ body) {
    try {
      await call("POST", `/api/tables/${tableId}/${what}`, body);
      socket.resync();
    } catch (exc) {
      ui.noticeCode = exc instanceof ApiError ? exc.code : "";
      ui.notice = ui.noticeCode === "not_invited" ? t("not_invited") : t("refused", { msg: String(/** @type {Error} */ (exc).message) });
      render();
    }
  }

  /** A §7.7 proposal, answer, withdrawal or "ready" (REST); the socket brings the new state. */
  async function lifeCall(/** @type {string} */ path, /** @type {any} */ body = {}) {
    try {
      await call("POST", `/api/tables/${tableId}/${path}`, body);
      if (path === "proposals") ui.substitute = "";
      ui.notice = ui.noticeCode = "";
      socket.resync(); // a substitute not seated here gets no update for his own answer otherwise
    } catch (exc) {
      ui.noticeCode = exc instanceof ApiError ? exc.code : "";
      ui.notice = t("refused", { msg: String(/** @type {Error} */ (exc).message) });
    }
    render();
  }

  const ratings = tableRatings(tableId, () => render());
  const unsubscribe = onLangChange(render);
  socket.start();
  render();
  return () => {
    unsubscribe();
    socket.stop();
    document.title = title;
    delete (/** @type {any} */ (window).preferans);
  };
}
