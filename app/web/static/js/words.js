/**
 * A deal's outcome in words, written from the engine's `DealResult` JSON and the sheet's history line:
 * made or down by N, counted as made without play (both defenders passed, or a half-whist not returned),
 * all-pass per player, misère made or caught, zastrel, a void deal, the seats out of time, an interrupted
 * deal, a judge's award and the timeout penalty. Every count goes through `tn` (the language's plural
 * rules), every amount through `signed` (so a negative one reads "−4", never "+-4").
 */
import { bidText } from "./cards.js";
import { signed, t, tn } from "./i18n.js";

/**
 * @typedef {{column: string, seat: number, amount: number, on?: number, reason?: string}} WriteJson
 * @typedef {{kind?: string, summary?: string, writes?: WriteJson[], result?: any}} LineJson
 * @typedef {(seat: number) => string} NameOf
 */

/** How many tricks `seat` took, or null when the deal was not played. @param {any} result @param {number} seat */
function took(result, seat) {
  const tricks = result?.tricks;
  if (!tricks) return null;
  return Number(tricks[String(seat)] ?? 0);
}

/** "Timeout: Anna" when clocks ran out in the deal (RULES §8.5). @param {any} result @param {NameOf} name */
function outOfTime(result, name) {
  const seats = /** @type {number[]} */ (result?.timed_out ?? []);
  return seats.length ? t("words_out_of_time", { names: seats.map(name).join(", ") }) : "";
}

/**
 * The head of a deal's words: what was played and how it ended.
 * @param {any} result the engine's DealResult JSON
 * @param {NameOf} name
 */
export function resultHead(result, name) {
  if (!result) return "";
  const type = result.type;
  if (type === "void") return t("words_void");
  if (type === "allpass") {
    const seats = Object.keys(result.tricks ?? {}).map(Number).sort((a, b) => a - b);
    const each = seats.map((s) => `${name(s)} ${tn("tricks", took(result, s) ?? 0)}`).join(", ");
    const talon = result.talon_tricks ? `; ${t("words_talon_tricks", { tricks: tn("tricks", result.talon_tricks), name: name(result.dealer) })}` : "";
    return `${t("words_allpass")}: ${each}${talon}`;
  }
  const who = name(result.declarer);
  const contract = bidText(result.contract ?? null);
  if (type === "zastrel") return `${who}: ${t("words_zastrel", { c: contract })}`;
  const declarer = result.partner !== undefined && result.partner !== null ? t("words_pair", { a: who, b: name(result.partner) }) : who;
  const n = took(result, result.declarer);
  if (type === "misere") {
    if (n === null) return `${declarer}: ${t("words_misere_unplayed")}`;
    return `${declarer}: ${n === 0 ? t("words_misere_made") : t("words_misere_caught", { tricks: tn("tricks", n) })}`;
  }
  if (n === null) {
    // RULES §4.7: nobody whisted (or a half-whist was not returned): the game counts as made, unplayed.
    const half = (result.calls ?? []).some((/** @type {[number, string]} */ c) => c[1] === "half-whist");
    return `${who}: ${t(half ? "words_unplayed_half" : "words_unplayed", { c: contract })}`;
  }
  const level = parseInt(result.contract, 10);
  if (n >= level) return `${who}: ${t("words_made", { c: contract, tricks: tn("tricks", n) })}`;
  return `${who}: ${t("words_down", { c: contract, down: tn("down_by", level - n), tricks: tn("tricks", n) })}`;
}

/** One write of the sheet in words ("Anna +4 pool", "Boris −8 whists on Anna"). @param {WriteJson} w @param {NameOf} name */
export function writeWords(w, name) {
  if (w.column === "whists") {
    return t("words_write_whists", { name: name(w.seat), amount: signed(w.amount), whists: tn("whist_word", Math.abs(w.amount)), on: name(w.on ?? -1) });
  }
  return t(w.column === "pool" ? "words_write_pool" : "words_write_mountain", { name: name(w.seat), amount: signed(w.amount) });
}

/**
 * The deal's words: the head, who ran out of time, and what the sheet wrote.
 * @param {any} result the engine's DealResult JSON
 * @param {LineJson | null | undefined} line the sheet's history line for the deal (its writes)
 * @param {NameOf} name
 */
export function resultWords(result, line, name) {
  const head = awardPrefix(line) + resultHead(result, name);
  const writes = (line?.writes ?? []).map((w) => writeWords(w, name)).join("; ");
  return [head, outOfTime(result, name), writes].filter(Boolean).join(". ");
}

/** A judge's award or its revision is said as such (the engine's summary names it). @param {LineJson | null | undefined} line */
function awardPrefix(line) {
  const summary = line?.summary ?? "";
  if (/^deal \d+ award revised:/.test(summary)) return `${t("words_award_revised")}: `;
  if (/^deal \d+ awarded:/.test(summary)) return `${t("words_awarded")}: `;
  return "";
}

/**
 * Any line of the sheet's history in words: a deal (with its result), an award, the timeout penalty
 * (RULES §5.8) or a judge's sanction.
 * @param {LineJson} line
 * @param {NameOf} name
 */
export function lineWords(line, name) {
  if (line.result) return resultWords(line.result, line, name);
  const writes = line.writes ?? [];
  if (line.kind === "timeout" && writes.length) {
    const on = writes[0].on ?? -1;
    return t("words_timeout_penalty", { name: name(on), whists: tn("whists_n", writes[0].amount) });
  }
  const head = line.kind === "sanction" ? t("words_sanction") : line.summary ?? "";
  return [head, writes.map((w) => writeWords(w, name)).join("; ")].filter(Boolean).join(": ");
}

/** A deal stopped before its end (RULES §8.2, §7.7): archived for a judge's award. @param {string | null | undefined} reason */
export function interruptedWords(reason) {
  return reason ? t("words_interrupted_why", { why: reason }) : t("words_interrupted");
}
