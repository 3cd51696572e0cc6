/** The site's entry: hash routes to page modules, the header (navigation, language switch). */
import { session, signOut } from "./api.js";
import { draw, h } from "./dom.js";
import { t, setLang, lang, onLangChange } from "./i18n.js";

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
  [/^#\/admin$/, () => import("./pages/admin.js")],
  [/^#\/operator$/, () => import("./pages/operator.js")],
  [/^#\/moderation$/, () => import("./pages/moderation.js")],
  [/^#\/lobby$/, () => import("./pages/lobby.js")],
];

/** @type {(() => void) | void} */
let unmount;

async function route() {
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
  if (unmount) unmount();
  draw(null, root);
  renderNav();
  unmount = module.mount(root, params);
}

function renderNav() {
  const nav = /** @type {HTMLElement} */ (document.getElementById("nav"));
  const user = session();
  draw(
    user
      ? [
          h("a", { href: "#/lobby" }, t("lobby")),
          h("a", { href: "#/games" }, t("my_games")),
          user.role === "operator" || user.role === "admin" ? h("a", { href: "#/operator", "data-nav": "operator" }, t("nav_operator")) : null,
          user.role === "admin" ? h("a", { href: "#/admin", "data-nav": "admin" }, t("nav_admin")) : null,
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
