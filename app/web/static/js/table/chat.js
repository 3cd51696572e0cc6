/**
 * The table chat (issue 22 §4): the messages the viewer may read, loaded with the page (so a reload shows
 * them) and kept current by the socket's `chat` frames; a text box, preset phrases, a mute for oneself and
 * a report on each message. Messages are text: drawn as text nodes, never HTML, and a link stays text.
 * In a room that closes the players' chat during deals (tournaments), the box says so and is inert.
 */
import { ApiError, call, session } from "../api.js";
import { h } from "../dom.js";
import { lang, t } from "../i18n.js";

/**
 * @typedef {{id: number, channel: string, user: string, seat: number | null, text: string, preset?: string | null, at: number}} Entry
 * @typedef {{until: number, site_wide: boolean, reason: string}} Mute
 */

// The engine's phases of a deal under way (app/table/chat.py DEAL_PHASES): the players' channel is closed
// in them where the room says so. The server decides; the page only shows it.
const DEAL_PHASES = new Set(["bidding", "dealer_invitation", "discard", "contract", "whisting", "play_mode", "play"]);

export class ChatStore {
  /** @param {number} tableId @param {() => void} changed */
  constructor(tableId, changed) {
    this.tableId = tableId;
    this.changed = changed;
    /** @type {Entry[]} */
    this.messages = [];
    this.channel = "spectators";
    this.closedInDeals = false;
    /** @type {Mute | null} */
    this.muted = null;
    /** @type {string[]} */
    this.ignored = [];
    /** @type {string[]} */
    this.presets = [];
    this.maxLength = 300;
    this.error = "";
    this.errorCode = "";
    /** @type {Set<number>} messages this user reported */
    this.reported = new Set();
    this.loaded = false;
    this.sending = false;
  }

  async load() {
    try {
      const data = await call("GET", `/api/tables/${this.tableId}/chat`);
      this.messages = data.messages;
      this.channel = data.channel;
      this.closedInDeals = data.closed_in_deals;
      this.muted = data.muted;
      this.ignored = data.ignored;
      this.presets = data.presets;
      this.maxLength = data.max_length;
      this.loaded = true;
    } catch (exc) {
      this.fail(exc);
    }
    this.changed();
  }

  /** A socket frame of the chat kinds. @param {any} frame */
  receive(frame) {
    if (frame.type === "chat") {
      const message = /** @type {Entry} */ (frame.message);
      if (this.ignored.includes(message.user) || this.messages.some((m) => m.id === message.id)) return;
      this.messages = [...this.messages, message].slice(-200);
    } else if (frame.type === "chat_removed") {
      this.messages = this.messages.filter((m) => m.id !== frame.id);
    } else if (frame.type === "chat_muted") {
      this.muted = { until: frame.until, site_wide: frame.site_wide, reason: frame.reason };
    } else return;
    this.changed();
  }

  /** @param {unknown} exc */
  fail(exc) {
    this.errorCode = exc instanceof ApiError ? exc.code : "error";
    this.error = chatError(this.errorCode, exc instanceof Error ? exc.message : String(exc));
  }

  /** @param {{text?: string, preset?: string}} body @returns {Promise<boolean>} sent */
  async send(body) {
    if (this.sending) return false;
    this.sending = true;
    this.error = this.errorCode = "";
    let sent = false;
    try {
      const message = await call("POST", `/api/tables/${this.tableId}/chat`, body);
      if (!this.messages.some((m) => m.id === message.id)) this.messages = [...this.messages, message];
      sent = true;
    } catch (exc) {
      this.fail(exc);
      if (this.errorCode === "chat_muted") await this.load();
    }
    this.sending = false;
    this.changed();
    return sent;
  }

  /** @param {string} name */
  async ignore(name) {
    await call("PUT", `/api/chat/ignores/${encodeURIComponent(name)}`);
    this.ignored = [...this.ignored, name];
    this.messages = this.messages.filter((m) => m.user !== name);
    this.changed();
  }

  /** @param {string} name */
  async unignore(name) {
    await call("DELETE", `/api/chat/ignores/${encodeURIComponent(name)}`);
    await this.load();
  }

  /** @param {number} id */
  async report(id) {
    try {
      await call("POST", `/api/chat/messages/${id}/report`, { reason: "" });
      this.reported.add(id);
    } catch (exc) {
      this.fail(exc);
    }
    this.changed();
  }
}

/** @param {string} code @param {string} message */
function chatError(code, message) {
  const known = ["chat_closed", "chat_muted", "rate_limited", "invalid_chat"];
  return known.includes(code) ? t(`chat_error_${code}`) : t("error_generic", { msg: message || code });
}

/** A message's words: its text, or its preset in the reader's language. @param {Entry} m */
export function messageText(m) {
  return m.preset ? t(`chat_preset_${m.preset}`) : m.text;
}

/** Whether the viewer may write now (the server has the last word). @param {ChatStore} chat @param {any} state */
function writable(chat, state) {
  if (chat.muted && chat.muted.until * 1000 > Date.now()) return "muted";
  const inDeal = state.status === "playing" && DEAL_PHASES.has(state.view?.phase);
  if (chat.channel === "players" && chat.closedInDeals && inDeal) return "closed";
  return "open";
}

/** @param {number} at seconds since the epoch */
function clock(at) {
  return new Date(at * 1000).toLocaleTimeString(lang(), { hour: "2-digit", minute: "2-digit" });
}

/**
 * The chat panel.
 * @param {ChatStore} chat
 * @param {any} state the table state (status, phase)
 * @param {{draft: string, setDraft: (text: string) => void}} input the text being typed (the page's state)
 */
export function chatElement(chat, state, input) {
  const me = session()?.name;
  const can = writable(chat, state);
  const inert = can !== "open" || chat.sending;
  const title = t(chat.channel === "players" ? "chat_players" : "chat_spectators");
  /** @param {Event} event */
  const submit = async (event) => {
    event.preventDefault();
    if (inert || !input.draft.trim()) return;
    if (await chat.send({ text: input.draft })) input.setDraft("");
  };
  return h(
    "section",
    { class: "panel chat", "data-chat": chat.channel, "data-chat-state": can, "aria-label": title },
    h("h3", {}, title),
    h(
      "ol",
      { class: "chat-log", role: "log", "aria-live": "polite", "data-chat-log": "", tabindex: 0, "aria-label": title },
      ...chat.messages.map((m) =>
        h(
          "li",
          { key: m.id, "data-chat-message": m.id, "data-channel": m.channel, "data-chat-user": m.user, class: m.channel === "spectators" ? "from-spectator" : undefined },
          h("time", { class: "chat-time" }, clock(m.at)),
          " ",
          h("strong", { class: "chat-user" }, m.user),
          ": ",
          h("span", { class: "chat-text", "data-chat-text": "" }, messageText(m)),
          m.user !== me
            ? h(
                "span",
                { class: "chat-actions" },
                h("button", { type: "button", class: "link", "data-action": "chat-ignore", "data-user": m.user, onclick: () => chat.ignore(m.user), "aria-label": t("chat_ignore_user", { name: m.user }) }, t("chat_ignore")),
                chat.reported.has(m.id)
                  ? h("span", { class: "chat-reported", "data-chat-reported": m.id }, t("chat_reported"))
                  : h("button", { type: "button", class: "link", "data-action": "chat-report", "data-message": m.id, onclick: () => chat.report(m.id), "aria-label": t("chat_report_message", { name: m.user }) }, t("chat_report")),
              )
            : null,
        ),
      ),
    ),
    h(
      "p",
      { class: "chat-note", role: "status" },
      can === "closed" ? t("chat_closed_note") : can === "muted" && chat.muted ? t(chat.muted.site_wide ? "chat_muted_site" : "chat_muted_room", { until: clock(chat.muted.until), reason: chat.muted.reason }) : "",
    ),
    chat.error ? h("p", { class: "error", "data-chat-error": chat.errorCode }, chat.error) : null,
    h(
      "form",
      { class: "chat-form", "data-chat-form": "", onsubmit: submit },
      h("label", { for: "chat-text", class: "visually-hidden" }, t("chat_message")),
      h("input", {
        id: "chat-text",
        name: "text",
        autocomplete: "off",
        maxlength: chat.maxLength,
        placeholder: t("chat_placeholder"),
        value: input.draft,
        "aria-disabled": inert ? "true" : undefined,
        readonly: inert,
        oninput: (/** @type {Event} */ e) => input.setDraft(/** @type {HTMLInputElement} */ (e.target).value),
      }),
      h("button", { type: "submit", "data-action": "chat-send", "aria-disabled": inert ? "true" : undefined }, t("chat_send")),
    ),
    h(
      "div",
      { class: "chat-presets", role: "group", "aria-label": t("chat_presets") },
      ...chat.presets.map((p) =>
        h("button", { type: "button", "data-chat-preset": p, "aria-disabled": inert ? "true" : undefined, onclick: () => (inert ? undefined : chat.send({ preset: p })) }, t(`chat_preset_${p}`)),
      ),
    ),
    chat.ignored.length
      ? h(
          "p",
          { class: "chat-ignored hint" },
          t("chat_ignored"),
          " ",
          ...chat.ignored.map((name) => h("button", { type: "button", class: "link", "data-action": "chat-unignore", "data-user": name, onclick: () => chat.unignore(name) }, `${name} ✕`)),
        )
      : null,
  );
}
