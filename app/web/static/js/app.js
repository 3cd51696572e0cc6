/** The site's entry: hash routes to page modules, the header (navigation, language switch). */
import { session, signOut } from "./api.js";
import { draw, h } from "./dom.js";
import { t, setLang, lang, onLangChange } from "./i18n.js";
import { rt } from "./ratings.js";

/**
 * A page module mounts itself into `root` and returns its unmount function.
 * @typedef {(root: HTMLElement, params: string[]) => (() => void) | void} Mount
 */

/** @type {Array<[RegExp, () => Promise<{mount: Mount}>]>} */
const ROUTES = [
  [/^#\/login$/, () => import("./pages/login.js")],
  [/^#\/invite\/([A-Za-z0-9_-]+)$/, () => import("./pages/invite.js")],
  [/^#\/table\/(\d+)$/, () => import("./pages/table.js")],
  [/^#\/games\/(\d+)$/, () => import("./pages/game.js")],
  [/^#\/games$/, () => import("./pages/games.js")],
  [/^#\/admin\/deals\/(\d+)$/, () => import("./pages/admin_deal.js")],
  [/^#\/admin\/tables\/(\d+)$/, () => import("./pages/admin_game.js")],
  [/^#\/admin\/appeals$/, () => import("./pages/admin_appeals.js")],
  [/^#\/admin$/, () => import("./pages/admin.js")],
  [/^#\/tournaments\/(\d+)$/, () => import("./pages/tournament.js")],
  [/^#\/tournaments$/, () => import("./pages/tournaments.js")],
  [/^#\/operator$/, () => import("./pages/operator.js")],
  [/^#\/ratings$/, () => import("./pages/ratings.js")],
  [/^#\/ratings\/room\/(\d+)$/, () => import("./pages/ratings.js")],
  [/^#\/players\/([^/]+)$/, () => import("./pages/player.js")],
  [/^#\/analysis\/(\d+)\/(\d+)$/, () => import("./pages/analysis.js")],
  [/^#\/stats\/(room)\/(\d+)$/, () => import("./pages/stats.js")],
  [/^#\/broadcast\/(\d+)$/, () => import("./pages/broadcast.js")],
  [/^#\/export\/(\d+)$/, () => import("./pages/export.js")],
  [/^#\/import$/, () => import("./pages/import.js")],
  [/^#\/stats\/([^/]+)$/, () => import("./pages/stats.js")],
  [/^#\/moderation$/, () => import("./pages/moderation.js")],
  [/^#\/lobby$/, () => import("./pages/lobby.js")],
];

/** @type {(() => void) | void} */
let unmount;
let navigations = 0;

async function route() {
  const turn = ++navigations;
  const root = /** @type {HTMLElement} */ (document.getElementById("page"));
  let hash = location.hash || "#/lobby";
  if (!session() && hash !== "#/login") {
    sessionStorage.setItem("preferans.after_login", hash);
    hash = "#/login";
    history.replaceState(null, "", hash);
  }
  const found = ROUTES.find(([pattern]) => pattern.test(hash)) ?? ROUTES[ROUTES.length - 1];
  const params = (hash.match(found[0]) ?? []).slice(1);
  const module = await found[1]();
  if (turn !== navigations) return; // left while its module loaded: the later page is the one shown
  if (unmount) unmount();
  // Each page draws into an element of its own: a page left while a request of its was on its way draws
  // its answer there, out of the document, not over the page that came after it.
  const view = document.createElement("div");
  view.className = "view";
  root.replaceChildren(view);
  renderNav();
  unmount = module.mount(view, params);
}

function renderNav() {
  const nav = /** @type {HTMLElement} */ (document.getElementById("nav"));
  const user = session();
  draw(
    user
      ? [
          h("a", { href: "#/lobby" }, t("lobby")),
          h("a", { href: "#/games" }, t("my_games")),
          h("a", { href: "#/tournaments", "data-nav": "tournaments" }, t("tournaments")),
          h("a", { href: "#/ratings", "data-nav": "ratings" }, rt("ratings")),
          user.role === "operator" || user.role === "admin" ? h("a", { href: "#/operator", "data-nav": "operator" }, t("nav_operator")) : null,
          user.role === "admin" ? h("a", { href: "#/admin", "data-nav": "admin" }, t("nav_admin")) : null,
          user.role === "admin" ? h("a", { href: "#/admin/appeals", "data-nav": "appeals" }, t("appeals")) : null,
          user.role === "operator" || user.role === "admin" ? h("a", { href: "#/moderation", "data-nav": "moderation" }, t("nav_moderation")) : null,
          h("span", { class: "whoami", "data-user": user.name }, user.name),
          h("button", { type: "button", "data-action": "logout", onclick: async () => { await signOut(); location.hash = "#/login"; } }, t("logout")),
        ]
      : null,
    nav,
  );
  for (const button of document.querySelectorAll("[data-lang]")) {
    button.setAttribute("aria-pressed", String(button.getAttribute("data-lang") === lang()));
  }
  document.querySelector(".brand")?.replaceChildren(t("brand"));
}

document.addEventListener("click", (event) => {
  const target = /** @type {HTMLElement} */ (event.target);
  const choice = target.closest("[data-lang]")?.getAttribute("data-lang");
  if (choice === "ru" || choice === "en") setLang(choice);
});
onLangChange(renderNav);
document.documentElement.lang = lang();
window.addEventListener("hashchange", route);
route();
