/** The table page: one socket, the panels re-rendered from each new state, the clocks ticking between. */
import { ApiError, call, session } from "../api.js";
import { bidText } from "../cards.js";
import { Clocks } from "../clocks.js";
import { h } from "../dom.js";
import { t, onLangChange } from "../i18n.js";
import { sheetElement, settlementElement } from "../sheet.js";
import { TableSocket } from "../socket.js";
import { auctionElement, biddingElement } from "../table/bidding.js";
import { dealEndElement } from "../table/dealend.js";
import { declarerElement } from "../table/declarer.js";
import { handElement } from "../table/hand.js";
import { seatElement } from "../table/seats.js";
import { centreElement } from "../table/trick.js";
import { whistingElement } from "../table/whisting.js";

/** @typedef {import("../table/model.js").Model} Model */
/** @typedef {import("../socket.js").TableState} TableState */

/** @param {HTMLElement} root @param {string[]} params */
export function mount(root, params) {
  const tableId = Number(params[0]);
  const user = session();
  if (!user) return;
  const clocks = new Clocks();
  /** @type {Set<string>} */
  const selected = new Set();
  /** @type {Model["lastDeal"]} */
  let lastDeal = null;
  let notice = "";
  let noticeCode = ""; // the server's code behind the notice (data-notice-code: tests and styles read it)
  let wasMyTurn = false;
  const title = document.title;

  const socket = new TableSocket(tableId, {
    onState: (state, frame) => {
      if (frame.type === "update" && state.seat === null) {
        // Seated from another tab or the lobby meanwhile: a snapshot brings this connection's seat.
        const seated = frame.events.some((/** @type {any} */ e) => e.kind === "seated" && e.data.user === user.name);
        if (seated) socket.resync();
      }
      if (frame.type === "snapshot" || frame.type === "update") {
        noteDealEnd(state, frame);
        clocks.update(state.clock, state.receivedAt);
        if (frame.type === "update") notice = noticeCode = "";
      }
      render();
    },
    onLink: () => render(),
    onRefused: (code, message) => {
      noticeCode = code;
      notice = code === "offline" ? t("offline_refused") : t("refused", { msg: message || code });
      render();
    },
    onFatal: (code, message) => {
      if (code === "unauthorized") {
        // Logged out, expired or disabled: log in again, then come back to this table.
        sessionStorage.setItem("preferans.after_login", location.hash);
        location.hash = "#/login";
        return;
      }
      noticeCode = code;
      notice = code === "private_room" ? t("private_room") : t("error_generic", { msg: message || code });
      render();
    },
  });
  // Debugging and test hook (docs/web.md): drop the socket as a failing network would.
  /** @type {any} */ (window).preferans = { dropSocket: () => socket.drop(), socket };

  /**
   * Keep the finished deal's record and result: an update bundles a player's last card with the server's
   * next shuffle, so the deal's end comes as a `deal_over` event (a snapshot taken at the very end shows
   * it in its view). The sheet's line for it is the last deal line of the sheet that came with it.
   * @param {TableState} state @param {any} frame
   */
  function noteDealEnd(state, frame) {
    const view = state.view;
    const lines = /** @type {any[]} */ (frame.sheet?.history ?? []).filter((line) => line.result);
    const lineFor = (/** @type {any} */ result) => {
      const line = lines[lines.length - 1];
      return line && line.result.type === result.type ? line : null;
    };
    const ends = /** @type {any[]} */ (frame.events ?? []).filter((e) => e.kind === "deal_over");
    const end = ends[ends.length - 1];
    if (end) {
      // The view is already the next deal's unless the table stopped at this deal's end.
      const next = view && !["deal_over", "awaiting_deal", "interrupted"].includes(view.phase);
      const dealNumber = (view?.deal_number ?? 1) - (next ? 1 : 0);
      lastDeal = { number: dealNumber, result: end.data.result, record: end.data.record, line: lineFor(end.data.result) };
    } else if (view?.phase === "deal_over" && view.result && lastDeal?.number !== view.deal_number) {
      lastDeal = { number: view.deal_number, result: view.result, record: view.record, line: lineFor(view.result) };
    }
    if (view?.phase !== "discard") selected.clear(); // a selection only lives through one discard
  }

  function names() {
    const seats = socket.state?.seats ?? [];
    return seats.map((s) => s.user ?? t("free_seat"));
  }

  function render() {
    const state = socket.state;
    const focused = document.activeElement?.getAttribute("data-card");
    root.replaceChildren(view(state));
    clocks.attach(root);
    clocks.paint();
    if (focused) /** @type {HTMLElement | null} */ (root.querySelector(`button[data-card="${focused}"]:not([disabled])`))?.focus();
    const mine = Boolean(state && state.legal.length && state.status === "playing");
    if (mine && !wasMyTurn) yourTurn();
    wasMyTurn = mine;
    document.title = mine ? `● ${t("your_turn")} — ${title}` : title;
  }

  /** @param {TableState | null} state */
  function view(state) {
    const banner =
      socket.link === "reconnecting"
        ? h("div", { class: "banner warn", role: "alert", "data-banner": "reconnecting" }, t("reconnecting"))
        : null;
    if (!state) {
      const refusal = notice ? h("div", { class: "banner", role: "alert", "data-notice": "", "data-notice-code": noticeCode || undefined }, notice) : h("p", {}, "…");
      return h("div", { class: "table-page", "data-table": tableId, "data-connection": socket.link }, banner, refusal);
    }
    const model = /** @type {Model} */ ({
      state,
      names: names(),
      mySeat: state.seat,
      legal: state.status === "playing" ? state.legal : [],
      canAct: socket.canSend,
      act: (/** @type {any} */ action) => {
        if (socket.act(action)) render();
      },
      selected,
      toggle: (/** @type {string} */ card) => {
        if (selected.has(card)) selected.delete(card);
        else if (selected.size < 2) selected.add(card);
        render();
      },
      lastDeal,
      sit: (/** @type {number} */ seat) => seatCall("sit", { seat }),
      leave: () => seatCall("leave", {}),
    });
    const v = state.view;
    const deal = v?.deal;
    const seatCount = state.seats.length;
    const order = Array.from({ length: seatCount }, (_, i) => ((state.seat ?? 0) + i) % seatCount);
    const others = order.filter((s) => s !== state.seat);
    const myHand = state.seat !== null && deal?.hands?.[String(state.seat)];
    const status = h(
      "div",
      { class: "status-line" },
      h("span", { class: `status ${state.status}`, "data-status": state.status }, t(`status_${state.status}`)),
      v ? h("span", {}, t("deal_n", { n: v.deal_number }), " · ", t(`phase_${v.phase}`)) : h("span", {}, t("waiting_players")),
      deal?.contract ? h("span", { class: "contract" }, `${t("contract")}: ${bidText(deal.contract)}`) : null,
      state.seat === null ? h("span", { class: "badge" }, t("spectator")) : null,
      v && v.to_act !== null && v.to_act !== undefined && state.status === "playing"
        ? h("span", { class: "turn-of", "aria-live": "polite" }, v.to_act === state.seat ? t("your_turn") : t("turn_of", { name: model.names[v.to_act] ?? "" }))
        : null,
    );
    const controls = state.status === "playing" && v
      ? [
          v.phase === "bidding" || v.phase === "dealer_invitation" ? biddingElement(model) : null,
          declarerElement(model),
          whistingElement(model),
        ]
      : [];
    const over = state.outcome
      ? h(
          "section",
          { class: "panel game-over", "data-game-over": state.outcome.reason },
          h("h3", {}, `${t("game_over")}: ${t(`reason_${state.outcome.reason}`)}`),
          state.outcome.settlement ? settlementElement(state.outcome.settlement, model.names) : null,
        )
      : null;
    return h(
      "div",
      {
        class: "table-page",
        "data-table": tableId,
        "data-version": state.v,
        "data-actions": state.actions ?? 0,
        "data-connection": socket.link,
        "data-my-seat": state.seat ?? "",
      },
      banner,
      notice ? h("div", { class: "banner", role: "status", "data-notice": "", "data-notice-code": noticeCode || undefined }, notice) : null,
      status,
      h(
        "div",
        { class: "table-layout" },
        h(
          "div",
          { class: "felt" },
          h("div", { class: "opponents" }, ...others.map((s) => seatElement(model, s))),
          centreElement(model),
          ...controls,
          state.seat !== null ? seatElement(model, state.seat) : null,
          myHand ? handElement(model, /** @type {number} */ (state.seat), myHand) : null,
        ),
        h(
          "aside",
          { class: "side" },
          over,
          dealEndElement(model),
          auctionElement(model),
          state.sheet ? sheetElement(state.sheet, model.names, { mini: true }) : null,
        ),
      ),
    );
  }

  /** Sit down or leave (REST), then take the connection's new seat from a fresh snapshot. */
  async function seatCall(/** @type {string} */ what, /** @type {any} */ body) {
    try {
      await call("POST", `/api/tables/${tableId}/${what}`, body);
      socket.resync();
    } catch (exc) {
      noticeCode = exc instanceof ApiError ? exc.code : "";
      notice = noticeCode === "not_invited" ? t("not_invited") : t("refused", { msg: String(/** @type {Error} */ (exc).message) });
      render();
    }
  }

  function yourTurn() {
    try {
      const audio = new AudioContext();
      const tone = audio.createOscillator();
      const gain = audio.createGain();
      gain.gain.value = 0.05;
      tone.frequency.value = 660;
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.12);
      tone.onended = () => audio.close();
    } catch {
      /* no sound allowed yet (no user gesture): the title still flashes */
    }
  }

  const unsubscribe = onLangChange(render);
  socket.start();
  render();
  return () => {
    unsubscribe();
    socket.stop();
    clocks.detach();
    document.title = title;
    delete (/** @type {any} */ (window).preferans);
  };
}
