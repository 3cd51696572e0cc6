/**
 * Seat clocks counted down locally from the server's figures on `performance.now()` (monotonic).
 *
 * The server's `clock` says, at the moment it sent the frame, each seat's deal time and reserve and which
 * seat's clock runs. Only the running seat is counted down: deal time first, then the reserve (shown in
 * red once it is being used). The page never decides a timeout: at zero it shows zero and waits.
 */
import { h, useEffect, useState } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {{deal_ms: number, reserve_ms: number, out: boolean}} SeatTime */
/** @typedef {{running: number | null, frozen: boolean, seats: SeatTime[]}} ClockJson */
/** @template P @typedef {import("./dom.js").FunctionComponent<P>} FunctionComponent */

// A tenth of a second: the shown figure is whole seconds, and the tests read the milliseconds.
const TICK_MS = 100;

/** @param {number} ms */
export function formatMs(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(total / 60);
  const s = total % 60;
  return `${m}:${String(s).padStart(2, "0")}`;
}

export class Clocks {
  constructor() {
    /** @type {ClockJson | null} */
    this.clock = null;
    this.at = 0;
    /** @type {number[]} the deal time each seat had in the previous frame, to notice a bonus or reset */
    this.previous = [];
    /** @type {Map<number, {text: string, until: number}>} */
    this.notes = new Map();
  }

  /** A new server figure. @param {ClockJson | null} clock @param {number} receivedAt performance.now() */
  update(clock, receivedAt) {
    if (clock) {
      clock.seats.forEach((seat, i) => {
        const before = this.previous[i];
        // More deal time than before: the misère bonus or the per-deal reset (RULES §8).
        if (before !== undefined && seat.deal_ms > before + 1000) {
          const gained = Math.round((seat.deal_ms - before) / 1000);
          this.notes.set(i, { text: t("bonus", { s: gained }), until: performance.now() + 3000 });
        }
      });
      this.previous = clock.seats.map((seat) => seat.deal_ms);
    }
    this.clock = clock;
    this.at = receivedAt;
  }

  /** The seat's time left now. @param {number} seat @returns {{deal: number, reserve: number, running: boolean, out: boolean}} */
  left(seat) {
    const clock = this.clock;
    if (!clock || !clock.seats[seat]) return { deal: 0, reserve: 0, running: false, out: false };
    const base = clock.seats[seat];
    const running = clock.running === seat && !clock.frozen && !base.out;
    if (!running) return { deal: base.deal_ms, reserve: base.reserve_ms, running, out: base.out };
    const spent = performance.now() - this.at;
    const deal = Math.max(0, base.deal_ms - spent);
    const reserve = Math.max(0, base.reserve_ms - Math.max(0, spent - base.deal_ms));
    return { deal, reserve, running, out: base.out };
  }

  /** The note under the seat's clock now ("+30 s"), or "". @param {number} seat */
  note(seat) {
    const note = this.notes.get(seat);
    return note && note.until > performance.now() ? note.text : "";
  }
}

/**
 * One seat's clock, redrawn every tick from the page's `Clocks` (only its own node changes; the note is a
 * live region that stays in place, so a bonus is announced once).
 * @type {FunctionComponent<{clocks: Clocks, seat: number, name: string}>}
 */
function Clock({ clocks, seat, name }) {
  const [, setNow] = useState(0);
  const left = clocks.left(seat);
  // Only a running clock or a showing note changes between frames; a frame redraws the others.
  const moving = left.running || clocks.note(seat) !== "";
  useEffect(() => {
    if (!moving) return undefined;
    const timer = setInterval(() => setNow(performance.now()), TICK_MS);
    return () => clearInterval(timer);
  }, [moving]);
  const inReserve = left.running && left.deal <= 0;
  const cls = `clock${left.running ? " running" : ""}${inReserve ? " in-reserve" : ""}${left.out ? " out" : ""}`;
  return h(
    "div",
    {
      class: cls,
      "data-clock-seat": seat,
      "data-deal-ms": Math.round(left.deal),
      "data-reserve-ms": Math.round(left.reserve),
      role: "timer",
      "aria-label": t("clock_of", { name }),
    },
    // Named for screen readers by hidden words beside the figures (a span may not carry aria-label).
    h("span", { class: "visually-hidden" }, `${t("time_deal")} `),
    h("span", { class: "deal", title: t("time_deal") }, formatMs(left.deal)),
    h("span", { class: "visually-hidden" }, ` ${t("time_reserve")} `),
    h("span", { class: "reserve", title: t("time_reserve") }, formatMs(left.reserve)),
    h("span", { class: "note", "aria-live": "polite" }, clocks.note(seat)),
  );
}

/** The element of one seat's clock. @param {Clocks} clocks @param {number} seat @param {string} name */
export function clockElement(clocks, seat, name) {
  return h(Clock, { clocks, seat, name });
}
