/**
 * Seat clocks counted down locally from the server's figures on `performance.now()` (monotonic).
 *
 * The server's `clock` says, at the moment it sent the frame, each seat's deal time and reserve and which
 * seat's clock runs. Only the running seat is counted down: deal time first, then the reserve (shown in
 * red once it is being used). The page never decides a timeout: at zero it shows zero and waits.
 */
import { h } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {{deal_ms: number, reserve_ms: number, out: boolean}} SeatTime */
/** @typedef {{running: number | null, frozen: boolean, seats: SeatTime[]}} ClockJson */

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
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.timer = undefined;
    /** @type {ParentNode | null} */
    this.root = null;
  }

  /** @param {ParentNode} root where the `[data-clock-seat]` elements live */
  attach(root) {
    this.root = root;
    clearInterval(this.timer);
    this.timer = setInterval(() => this.paint(), 100);
  }

  detach() {
    clearInterval(this.timer);
    this.root = null;
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
    this.paint();
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

  paint() {
    if (!this.root) return;
    for (const el of this.root.querySelectorAll("[data-clock-seat]")) {
      const seat = Number(el.getAttribute("data-clock-seat"));
      const left = this.left(seat);
      el.setAttribute("data-deal-ms", String(Math.round(left.deal)));
      el.setAttribute("data-reserve-ms", String(Math.round(left.reserve)));
      el.classList.toggle("running", left.running);
      el.classList.toggle("in-reserve", left.running && left.deal <= 0);
      el.classList.toggle("out", left.out);
      const deal = el.querySelector(".deal");
      const reserve = el.querySelector(".reserve");
      if (deal) deal.textContent = formatMs(left.deal);
      if (reserve) reserve.textContent = formatMs(left.reserve);
      const note = this.notes.get(seat);
      const noteEl = el.querySelector(".note");
      if (noteEl) noteEl.textContent = note && note.until > performance.now() ? note.text : "";
    }
  }
}

/** The element of one seat's clock (filled by `Clocks.paint`). @param {number} seat @param {string} name */
export function clockElement(seat, name) {
  return h(
    "div",
    { class: "clock", "data-clock-seat": seat, role: "timer", "aria-label": t("clock_of", { name }) },
    h("span", { class: "deal", title: t("time_deal"), "aria-label": t("time_deal") }, "0:00"),
    h("span", { class: "reserve", title: t("time_reserve"), "aria-label": t("time_reserve") }, "0:00"),
    h("span", { class: "note", "aria-live": "polite" }),
  );
}
