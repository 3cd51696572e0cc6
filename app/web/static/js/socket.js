/**
 * The table websocket: versions, resync on a gap, reconnection with backoff, numbered commands.
 *
 * Every (re)connection opens with a fresh single-use ticket (`POST /api/auth/ws-ticket`): the login token
 * never goes in a URL. A command is sent only while the socket is open; offline it is refused at once (never queued), so a
 * click can never be applied twice. Every command gets a fresh sequence number above the server's
 * `last_seq`; a command lost with the socket is not resent (the fresh snapshot says where the game is).
 */

/**
 * @typedef {import("./protocol").SeatInfo} SeatInfo
 * @typedef {import("./protocol").EventFrame} EventFrame
 * @typedef {import("./protocol").ServerMessage} ServerMessage
 * @typedef {import("./protocol").SnapshotMessage} SnapshotMessage
 * @typedef {import("./protocol").UpdateMessage} UpdateMessage
 * The table as the page knows it: the last snapshot with every later update applied. The engine's JSON
 * the protocol carries as open objects (view, clock, legal actions, sheet) the panels read with their own
 * JSDoc types.
 * @typedef {Omit<SnapshotMessage, "view" | "clock" | "legal" | "sheet" | "type" | "last_seq"> & {
 *   view: any, clock: any, legal: any[], sheet: any, events: EventFrame[], receivedAt: number,
 *   paused?: "storage" | "reconnect" | null
 * }} TableState
 * @typedef {"connecting" | "online" | "reconnecting" | "closed"} Link
 * @typedef {{
 *   onState: (state: TableState, frame: ServerMessage) => void,
 *   onLink: (link: Link) => void,
 *   onRefused: (code: string, message: string) => void,
 *   onFatal: (code: string, message: string) => void,
 *   onChat?: (frame: import("./protocol").ChatFrame | import("./protocol").ChatRemovedFrame | import("./protocol").ChatMutedFrame) => void,
 * }} Handlers
 */

import { ApiError, call } from "./api.js";

const BACKOFF_MS = [250, 500, 1000, 2000, 4000, 8000];

export class TableSocket {
  /** @param {number} tableId @param {Handlers} handlers */
  constructor(tableId, handlers) {
    this.tableId = tableId;
    this.handlers = handlers;
    /** @type {WebSocket | null} */
    this.ws = null;
    /** @type {TableState | null} */
    this.state = null;
    this.seq = 0;
    /** @type {number | null} the command awaiting its ack */
    this.pending = null;
    this.attempt = 0;
    this.stopped = false;
    /** @type {Link} */
    this.link = "connecting";
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retry = undefined;
  }

  start() {
    this.stopped = false;
    this.open();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retry);
    this.ws?.close(1000);
    this.setLink("closed");
  }

  /** Ask for a fresh snapshot (after sitting down or leaving: the connection's seat changed). */
  resync() {
    if (this.ws && this.link === "online") this.ws.send(JSON.stringify({ type: "resync", v: this.state?.v ?? null }));
  }

  /** Test and debugging hook: drop the socket as a network failure would. */
  drop() {
    this.ws?.close(4000, "dropped");
  }

  /** @returns {boolean} whether a command may be sent now */
  get canSend() {
    return this.link === "online" && this.pending === null;
  }

  /**
   * Send one action (a copy from `legal`, or built from one). Refused (false) while offline or while the
   * previous command waits for its answer.
   * @param {any} action
   */
  act(action) {
    if (!this.ws || this.link !== "online") {
      this.handlers.onRefused("offline", "");
      return false;
    }
    if (this.pending !== null) return false;
    this.seq += 1;
    this.pending = this.seq;
    this.ws.send(JSON.stringify({ type: "action", seq: this.seq, action }));
    return true;
  }

  /** @param {Link} link */
  setLink(link) {
    this.link = link;
    this.handlers.onLink(link);
  }

  async open() {
    /** @type {string} */
    let ticket;
    /** @type {string | undefined} */
    let owner;
    try {
      // With several server workers the answer names the one that runs the table (`url`).
      const answer = await call("POST", `/api/auth/ws-ticket?table=${this.tableId}`);
      ticket = answer.ticket;
      owner = answer.url;
    } catch (exc) {
      if (exc instanceof ApiError && exc.status === 401) {
        this.stopped = true;
        this.handlers.onFatal("unauthorized", exc.message);
      } else {
        this.retryLater(); // the server is unreachable: try again like a dropped socket
      }
      return;
    }
    if (this.stopped) return;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const url =
      owner ?? `${scheme}://${location.host}/ws/tables/${this.tableId}?ticket=${encodeURIComponent(ticket)}`;
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onmessage = (event) => this.receive(JSON.parse(event.data));
    ws.onclose = (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      // 4307: another worker runs the table; the next ticket names it, so reconnect at once.
      if (event.code === 4307) this.attempt = 0;
      this.pending = null; // lost with the socket; the snapshot after reconnecting tells what was applied
      if (!this.stopped) this.retryLater();
    };
  }

  retryLater() {
    this.setLink("reconnecting");
    const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.open(), delay * (0.75 + Math.random() / 2));
  }

  /** @param {ServerMessage} frame */
  receive(frame) {
    switch (frame.type) {
      case "snapshot": {
        this.attempt = 0;
        this.seq = Math.max(this.seq, frame.last_seq ?? 0);
        this.pending = null;
        const state = { ...frame, events: [], receivedAt: performance.now() };
        this.state = state;
        this.setLink("online");
        this.handlers.onState(state, frame);
        break;
      }
      case "update": {
        const state = this.state;
        if (!state || frame.v !== state.v + 1) {
          // A lost frame: ask for the whole picture rather than guess.
          this.ws?.send(JSON.stringify({ type: "resync", v: state?.v ?? null }));
          return;
        }
        const next = {
          ...state,
          ...frame,
          sheet: frame.sheet ?? state.sheet,
          seat: state.seat,
          seats: state.seats,
          receivedAt: performance.now(),
        };
        this.state = next;
        this.handlers.onState(next, frame);
        break;
      }
      case "clock":
        // The server stopped or restarted the clocks without a step (its database away, or a restart
        // waiting for the seat to move): the same version, new clocks.
        if (this.state && frame.v === this.state.v) {
          const next = { ...this.state, clock: frame.clock, paused: frame.paused ? frame.reason ?? null : null, receivedAt: performance.now() };
          this.state = next;
          this.handlers.onState(next, frame);
        }
        break;
      case "presence":
        if (this.state) {
          const next = { ...this.state, seats: frame.seats };
          this.state = next;
          this.handlers.onState(next, frame);
        }
        break;
      case "ack":
        if (frame.seq === this.pending) this.pending = null;
        if (this.state) this.handlers.onState(this.state, frame);
        break;
      case "error":
        if (frame.code === "moved") return; // the close (4307) that follows reconnects
        // Not for this user (logged out, no such table, a private room closed to spectators): no retry.
        if (frame.code === "unauthorized" || frame.code === "not_found" || frame.code === "private_room") {
          this.stopped = true;
          this.handlers.onFatal(frame.code, frame.message);
          return;
        }
        if (frame.seq === undefined || frame.seq === null || frame.seq === this.pending) this.pending = null;
        this.handlers.onRefused(frame.code, frame.message);
        if (this.state) this.handlers.onState(this.state, frame);
        break;
      case "chat":
      case "chat_removed":
      case "chat_muted":
        this.handlers.onChat?.(frame);
        break;
      default:
        break;
    }
  }
}
