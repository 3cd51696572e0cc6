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
