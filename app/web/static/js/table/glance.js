/**
 * Readable at a glance (issue 22 §2): a banner when it is the player's turn, the "your turn" sound and
 * browser notification (permission asked on the player's own click; both can be turned off and the
 * choice is kept), and the sheet shown large on demand.
 */
import { h } from "../dom.js";
import { t } from "../i18n.js";

const KEYS = { sound: "preferans.turn_sound", notify: "preferans.turn_notify" };

export class TurnAlerts {
  constructor() {
    this.sound = localStorage.getItem(KEYS.sound) !== "off";
    this.notify = localStorage.getItem(KEYS.notify) === "on" && typeof Notification !== "undefined" && Notification.permission === "granted";
  }

  /** @param {boolean} on */
  setSound(on) {
    this.sound = on;
    localStorage.setItem(KEYS.sound, on ? "on" : "off");
  }

  /** Turning notifications on asks the browser's permission (this runs in the player's click). @param {boolean} on */
  async setNotify(on) {
    if (on && typeof Notification !== "undefined" && Notification.permission !== "granted") {
      on = (await Notification.requestPermission()) === "granted";
    }
    this.notify = on && typeof Notification !== "undefined";
    localStorage.setItem(KEYS.notify, this.notify ? "on" : "off");
  }

  /** The turn came to the player. @param {string} text */
  yourTurn(text) {
    if (this.sound) beep();
    if (this.notify && document.hidden && typeof Notification !== "undefined" && Notification.permission === "granted") {
      try {
        new Notification(text, { tag: "preferans-turn" });
      } catch {
        /* a browser that allows notifications only from a service worker: the title still says it */
      }
    }
  }
}

function beep() {
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

/** The settings of the alerts. @param {TurnAlerts} alerts @param {() => void} changed */
export function alertSettings(alerts, changed) {
  return h(
    "div",
    { class: "turn-settings", role: "group", "aria-label": t("turn_settings") },
    h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", "data-setting": "sound", checked: alerts.sound, onchange: (/** @type {Event} */ e) => { alerts.setSound(/** @type {HTMLInputElement} */ (e.target).checked); changed(); } }),
      " ",
      t("turn_sound"),
    ),
    h(
      "label",
      { class: "check" },
      h("input", { type: "checkbox", "data-setting": "notify", checked: alerts.notify, onchange: async (/** @type {Event} */ e) => { await alerts.setNotify(/** @type {HTMLInputElement} */ (e.target).checked); changed(); } }),
      " ",
      t("turn_notify"),
    ),
  );
}

/** "Your turn" across the table when it is. @param {boolean} mine @param {string} phase */
export function turnBanner(mine, phase) {
  return mine ? h("div", { class: "your-turn", "data-your-turn": "" }, t("your_turn"), phase ? ` — ${t(`phase_${phase}`)}` : "") : null;
}
