/**
 * A room's settings of issue 21 on the operator's page: rated or practice (never rated, with the solver's
 * hint at its tables), the rating limits to sit (the room ladder's shown rating), and broadcast
 * (spectators follow its tables one deal behind). Its own state: read on first draw, saved as a whole.
 */
import { call } from "./api.js";
import { h, useEffect, useState } from "./dom.js";
import { lang } from "./i18n.js";

const TEXTS = {
  en: { title: "Ratings, practice and broadcast", rated: "Rated games (off: a practice room, with hints)", min: "Minimum rating to sit", max: "Maximum rating to sit", broadcast: "Broadcast its tables one deal behind", save: "Save", saved: "Saved" },
  ru: { title: "Рейтинг, тренировка и трансляция", rated: "Рейтинговые игры (выкл.: тренировочная комната с подсказками)", min: "Минимальный рейтинг, чтобы сесть", max: "Максимальный рейтинг, чтобы сесть", broadcast: "Транслировать столы с отставанием на сдачу", save: "Сохранить", saved: "Сохранено" },
};

/** @param {{roomId: number}} props */
export function RoomSettingsPanel({ roomId }) {
  const words = TEXTS[lang()];
  const [settings, setSettings] = useState(/** @type {any} */ (null));
  const [status, setStatus] = useState("");
  useEffect(() => {
    call("GET", `/api/ratings/rooms/${roomId}/settings`).then(setSettings, (exc) => setStatus(String(exc.message)));
  }, [roomId]);
  if (!settings) return h("p", {}, status || "…");
  const field = (/** @type {string} */ key, /** @type {string} */ label) =>
    h("label", {}, `${label} `, h("input", {
      type: "number", min: 0, max: 10000, "data-room-setting": key, value: settings[key] ?? "",
      oninput: (/** @type {Event} */ e) => { const v = /** @type {HTMLInputElement} */ (e.target).value; setSettings({ ...settings, [key]: v === "" ? null : Number(v) }); },
    }));
  const check = (/** @type {string} */ key, /** @type {string} */ label) =>
    h("label", {}, h("input", {
      type: "checkbox", "data-room-setting": key, checked: Boolean(settings[key]),
      onchange: (/** @type {Event} */ e) => setSettings({ ...settings, [key]: /** @type {HTMLInputElement} */ (e.target).checked }),
    }), ` ${label}`);
  const save = async () => {
    try {
      const { rated, min_rating, max_rating, broadcast } = settings;
      setSettings(await call("PUT", `/api/ratings/rooms/${roomId}/settings`, { rated, min_rating, max_rating, broadcast }));
      setStatus(words.saved);
    } catch (exc) {
      setStatus(String(/** @type {Error} */ (exc).message));
    }
  };
  return h(
    "fieldset",
    { class: "room-settings", "data-room-settings": roomId },
    h("legend", {}, words.title),
    h("p", {}, check("rated", words.rated)),
    h("p", {}, field("min_rating", words.min), " ", field("max_rating", words.max)),
    h("p", {}, check("broadcast", words.broadcast)),
    h("button", { type: "button", "data-action": "save-room-settings", onclick: save }, words.save),
    status ? h("span", { role: "status", "data-room-settings-status": "" }, ` ${status}`) : null,
  );
}
