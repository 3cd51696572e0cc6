/** Language of the site: Russian by default, the choice kept in localStorage for every page. */
import ru from "../i18n/ru.js";
import en from "../i18n/en.js";

/** @typedef {"ru" | "en"} Lang */

/** @type {Record<Lang, Record<string, string>>} */
const DICTS = { ru, en };
const KEY = "preferans.lang";
/** @type {Set<() => void>} */
const listeners = new Set();

/** @returns {Lang} */
export function lang() {
  const stored = localStorage.getItem(KEY);
  return stored === "en" ? "en" : "ru";
}

/**
 * The text for `key` in the current language, with `{name}` placeholders filled.
 * @param {string} key
 * @param {Record<string, string | number>} [params]
 */
export function t(key, params = {}) {
  const text = DICTS[lang()][key] ?? DICTS.ru[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

/** @param {Lang} value */
export function setLang(value) {
  localStorage.setItem(KEY, value);
  document.documentElement.lang = value;
  for (const listener of listeners) listener();
}

/** @param {() => void} listener @returns {() => void} unsubscribe */
export function onLangChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * The text for a counted noun, in the plural form the language's rules choose for `n` (the browser's
 * `Intl.PluralRules`): the dictionaries hold `KEY_one`, `KEY_few`, `KEY_many`, `KEY_other` as the
 * language needs (Russian: 1 взятка, 2 взятки, 5 взяток; English: 1 trick, 2 tricks). `{n}` is the count.
 * @param {string} key
 * @param {number} n
 * @param {Record<string, string | number>} [params]
 */
export function tn(key, n, params = {}) {
  const dict = DICTS[lang()];
  const form = new Intl.PluralRules(lang()).select(n);
  const chosen = [`${key}_${form}`, `${key}_other`, `${key}_many`].find((k) => k in dict) ?? `${key}_other`;
  return t(chosen, { n, ...params });
}

/** A signed amount: "+4", "−4" (the minus sign, never "+-4"), "0". @param {number} n */
export function signed(n) {
  return n > 0 ? `+${n}` : n < 0 ? `\u2212${-n}` : "0";
}
