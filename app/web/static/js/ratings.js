/**
 * Ratings and analysis on the site (issue 21): their words (kept here, beside the pages that use them,
 * in both languages), a rating as shown ("1523", "1500?" while provisional), and the SVG line chart the
 * player page draws (by the site itself: no charting library).
 */
import { call } from "./api.js";
import { bidText, cardElement } from "./cards.js";
import { h } from "./dom.js";
import { lang } from "./i18n.js";

/** @type {Record<"ru" | "en", Record<string, string>>} */
const TEXTS = {
  en: {
    ratings: "Ratings",
    leaderboard: "Leaderboard",
    site_ladder: "Whole site",
    room_ladder: "Room {name}",
    rank: "#",
    player: "Player",
    rating: "Rating",
    pulyas: "Pulyas",
    no_ratings: "Nobody is rated here yet: a rating comes with the first settled pulya.",
    provisional_note: "“?” marks a provisional rating: it settles after a few pulyas.",
    rating_history: "Rating history",
    no_history: "No rated pulya yet.",
    robot_note: "A robot: its rating is a fixed anchor, and it is not on the leaderboards.",
    rooms_ladders: "Room ladders",
    analysis: "Analysis",
    analysis_of: "Deal {n} · analysis",
    declarer_could: "The declarer could make {n} (par); took {m}.",
    mistakes: "Mistakes",
    tricks_lost: "tricks lost",
    trick_n: "Trick {n}",
    before: "Value before",
    best: "Best",
    cost: "Cost",
    optimal: "best",
    no_analysis: "Nothing to analyse in this deal (an all-pass deal, or no card was played).",
    analysis_not_yet: "The analysis is shown once the deal (in a tournament, the round) is over.",
    prev: "◀ Previous trick",
    next: "Next trick ▶",
    all_tricks: "Whole deal",
    hands_now: "Hands before this trick",
    statistics: "Statistics",
    room_statistics: "Room statistics · {name}",
    deals: "Deals",
    contracts_by_level: "Contracts by level",
    declared: "declared",
    made: "made",
    misere_line: "Misères played {n}, caught {c}",
    whist_line: "Whists called {n}; the contract set in {s}; {t} tricks per whist",
    allpass_line: "All-pass deals {n}, {t} tricks per deal",
    index_line: "Average index per pulya: {a}",
    index_chart: "Index per pulya",
    time_line: "Thinking time {s} s ({d} s per deal); deals lost on time {n}",
    mistakes_line: "Analysed deals {n}: {m} mistakes ({p} per deal), {l} tricks lost",
    none: "—",
    broadcast: "Broadcast",
    broadcast_title: "Table {id} · broadcast one deal behind",
    live_hidden: "Deal {n} is being played: its cards stay hidden until it ends.",
    showing_deal: "Deal {n}, every hand open",
    no_finished_deal: "No deal has finished yet.",
    export: "Export / print",
    download_json: "Download the JSON record",
    print: "Print",
    import: "Import a record into analysis",
    import_hint: "Paste a game's JSON record (preferans-game/1) or choose its file.",
    analyse: "Analyse",
    talon: "Talon",
    discard: "Discard",
    tricks: "Tricks",
    hint: "Hint",
    hint_is: "the solver would play:",
  },
  ru: {
    ratings: "Рейтинги",
    leaderboard: "Таблица рейтинга",
    site_ladder: "Весь сайт",
    room_ladder: "Комната {name}",
    rank: "№",
    player: "Игрок",
    rating: "Рейтинг",
    pulyas: "Пуль",
    no_ratings: "Здесь пока никто не оценён: рейтинг появляется с первой закрытой пулей.",
    provisional_note: "«?» — предварительный рейтинг: он устоится после нескольких пуль.",
    rating_history: "История рейтинга",
    no_history: "Рейтинговых пуль ещё не было.",
    robot_note: "Робот: его рейтинг — неподвижная точка отсчёта, в таблицах рейтинга его нет.",
    rooms_ladders: "Рейтинги по комнатам",
    analysis: "Разбор",
    analysis_of: "Сдача {n} · разбор",
    declarer_could: "Разыгрывающий мог взять {n} (пар); взял {m}.",
    mistakes: "Ошибки",
    tricks_lost: "потеряно взяток",
    trick_n: "Взятка {n}",
    before: "Оценка до хода",
    best: "Лучшие",
    cost: "Цена",
    optimal: "лучший",
    no_analysis: "В этой сдаче нечего разбирать (распасы или карты не разыгрывались).",
    analysis_not_yet: "Разбор показывается после окончания сдачи (в турнире — после окончания тура).",
    prev: "◀ Предыдущая взятка",
    next: "Следующая взятка ▶",
    all_tricks: "Вся сдача",
    hands_now: "Руки перед этой взяткой",
    statistics: "Статистика",
    room_statistics: "Статистика комнаты · {name}",
    deals: "Сдач",
    contracts_by_level: "Игры по уровням",
    declared: "заказано",
    made: "сыграно",
    misere_line: "Мизеров сыграно {n}, поймано {c}",
    whist_line: "Вистов {n}; игра не сыграна в {s}; {t} взяток на вист",
    allpass_line: "Распасов {n}, {t} взяток за сдачу",
    index_line: "Средний итог за пулю: {a}",
    index_chart: "Итог по пулям",
    time_line: "Время на обдумывание {s} с ({d} с на сдачу); сдач проиграно по времени {n}",
    mistakes_line: "Разобранных сдач {n}: ошибок {m} ({p} на сдачу), потеряно взяток {l}",
    none: "—",
    broadcast: "Трансляция",
    broadcast_title: "Стол {id} · трансляция с отставанием на сдачу",
    live_hidden: "Идёт сдача {n}: её карты скрыты до её конца.",
    showing_deal: "Сдача {n}, все руки открыты",
    no_finished_deal: "Ещё ни одна сдача не закончилась.",
    export: "Экспорт / печать",
    download_json: "Скачать запись (JSON)",
    print: "Печать",
    import: "Загрузить запись для разбора",
    import_hint: "Вставьте JSON-запись партии (preferans-game/1) или выберите файл.",
    analyse: "Разобрать",
    talon: "Прикуп",
    discard: "Снос",
    tricks: "Взятки",
    hint: "Подсказка",
    hint_is: "решатель сыграл бы:",
  },
};

/** @param {string} key @param {Record<string, string | number>} [params] */
export function rt(key, params = {}) {
  const text = TEXTS[lang()][key] ?? TEXTS.ru[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

/** @typedef {{rating: number, provisional: boolean, games: number}} Shown */

/** "1523", or "1500?" while provisional. @param {{rating: number, provisional: boolean}} r */
export function ratingText(r) {
  return `${r.rating}${r.provisional ? "?" : ""}`;
}

/** The rating beside a player's name (lobby, table). @param {Shown | undefined | null} r */
export function ratingBadge(r) {
  if (!r) return null;
  return h("span", { class: "rating-badge", "data-rating": r.rating, "data-provisional": String(r.provisional), title: rt("rating") }, ratingText(r));
}

/**
 * A line chart of ratings over pulyas, drawn as SVG: one point per rated pulya, the provisional ones
 * hollow; the axis shows the lowest and highest rating.
 * @param {Array<{rating: number, provisional: boolean, at: number}>} points
 */
export function ratingChart(points) {
  const width = 640;
  const height = 220;
  const pad = { left: 48, right: 12, top: 12, bottom: 24 };
  const values = [1500, ...points.map((p) => p.rating)];
  const low = Math.min(...values) - 10;
  const high = Math.max(...values) + 10;
  const x = (/** @type {number} */ i) => pad.left + (points.length <= 1 ? 0 : (i * (width - pad.left - pad.right)) / (points.length - 1));
  const y = (/** @type {number} */ v) => pad.top + ((high - v) * (height - pad.top - pad.bottom)) / (high - low);
  const line = points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" ");
  return h(
    "svg",
    { class: "rating-chart", "data-rating-chart": points.length, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": rt("rating_history") },
    h("line", { x1: pad.left, y1: pad.top, x2: pad.left, y2: height - pad.bottom, stroke: "#888" }),
    h("line", { x1: pad.left, y1: height - pad.bottom, x2: width - pad.right, y2: height - pad.bottom, stroke: "#888" }),
    h("text", { x: 4, y: y(high - 10) + 4, "font-size": 12 }, String(high - 10)),
    h("text", { x: 4, y: y(low + 10) + 4, "font-size": 12 }, String(low + 10)),
    h("line", { x1: pad.left, y1: y(1500), x2: width - pad.right, y2: y(1500), stroke: "#ccc", "stroke-dasharray": "4 4" }),
    h("path", { d: line, fill: "none", stroke: "#2c4f8a", "stroke-width": 2 }),
    ...points.map((p, i) =>
      h("circle", { key: i, cx: x(i), cy: y(p.rating), r: 4, fill: p.provisional ? "#fff" : "#2c4f8a", stroke: "#2c4f8a", "data-point": p.rating },
        h("title", {}, `${ratingText(p)} · ${new Date(p.at * 1000).toLocaleDateString()}`),
      ),
    ),
  );
}

/**
 * The seated players' ratings for the table page: `strip(names)` draws them (room ladder, "?" while
 * provisional) and fetches them again whenever the seated names change, then calls `onChange`.
 * @param {number} tableId @param {() => void} onChange
 */
export function tableRatings(tableId, onChange) {
  let key = "";
  /** @type {any[]} */
  let seats = [];
  let practice = false;
  /** @type {any} */
  let hint = null;
  let hintError = "";
  let hintKey = "";

  async function askHint(/** @type {string} */ at) {
    hintError = "";
    try {
      hint = (await call("POST", `/api/tables/${tableId}/hint`)).hint;
      hintKey = at;
    } catch (exc) {
      hintError = String(/** @type {Error} */ (exc).message);
    }
    onChange();
  }

  /** The hint in words: a card's face, a bid, or the action's name. @param {any} action */
  function hintText(action) {
    if (action.card) return cardElement(action.card);
    if (action.bid) return bidText(action.bid);
    return [action.type, action.call ?? action.mode ?? ""].filter(Boolean).join(" ");
  }

  return {
    /**
     * @param {string[]} names the seated names (a change fetches the ratings again)
     * @param {string} [turn] a key of the position when it is this player's turn (none: no hint button)
     */
    strip(names, turn) {
      const now = names.join("\u0000");
      if (now !== key) {
        key = now;
        call("GET", `/api/ratings/tables/${tableId}`)
          .then((data) => {
            seats = data.seats;
            practice = Boolean(data.practice);
            onChange();
          })
          .catch(() => {
            /* ratings are an extra: the table plays on without them */
          });
      }
      if (!seats.length) return null;
      const hintShown = practice && turn && hintKey === turn && hint;
      return h(
        "span",
        { class: "table-ratings", "data-table-ratings": "" },
        practice && turn
          ? h("span", { class: "hint-box" },
              h("button", { type: "button", "data-action": "hint", onclick: () => askHint(turn) }, rt("hint")),
              hintShown ? h("span", { "data-hint": JSON.stringify(hint) }, ` ${rt("hint_is")} `, hintText(hint)) : null,
              hintError ? h("span", { class: "error", role: "alert" }, hintError) : null,
              " ")
          : null,
        `${rt("ratings")}: `,
        ...seats.map((s, i) =>
          h("span", { key: s.seat, "data-seat-rating": s.seat }, i ? " · " : "", h("a", { href: `#/players/${encodeURIComponent(s.user)}` }, s.user), " ", ratingBadge(s.room_rating)),
        ),
      );
    },
  };
}
