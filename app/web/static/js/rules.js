/** A room's rules at a glance (issue 22 §2): pool, clocks, variant, stake, all-pass, the chief conventions. */
import { h } from "./dom.js";
import { t, tn } from "./i18n.js";

/** @param {number} seconds */
function duration(seconds) {
  if (seconds >= 60 && seconds % 60 === 0) return tn("minutes", seconds / 60);
  return tn("seconds", Math.round(seconds));
}

/**
 * @param {any} room a lobby room (`preset`, `conventions`)
 * @param {{robots?: number}} [extra] robot seats in the room's tables now
 */
export function rulesElement(room, extra = {}) {
  const c = room.conventions ?? {};
  /** @type {Array<[string, string]>} */
  const rows = [
    ["rules_variant", `${room.preset === "fspr-leningrad" ? t("rules_leningrad") : room.preset}${c.stalingrad ? `, ${t("rules_stalingrad")}` : ""}`],
    ["rules_pool", String(c.pool_size ?? "")],
    ["rules_clock", t("rules_clock_value", { deal: duration(Number(c.deal_time ?? 0)), reserve: duration(Number(c.reserve_time ?? 0)) })],
    ["rules_stake", Number(c.stake_per_whist ?? 0) > 0 ? String(c.stake_per_whist) : t("rules_no_stake")],
    ["rules_allpass", (c.allpass_progression ?? []).join(", ")],
    ["rules_whists", [c.half_whist ? t("rules_half_whist") : "", c.gentleman ? t("rules_gentleman") : "", c.zastrel ? t("rules_zastrel") : ""].filter(Boolean).join(", ") || "—"],
    ["rules_robots", extra.robots ? tn("robot_seats", extra.robots) : t("rules_no_robots")],
  ];
  return h(
    "details",
    { class: "room-rules", "data-room-rules": room.id },
    h("summary", {}, `${t("rules_title")}: ${t("rules_pool")} ${c.pool_size ?? ""} · ${duration(Number(c.deal_time ?? 0))} + ${duration(Number(c.reserve_time ?? 0))}`),
    h("dl", {}, ...rows.flatMap(([key, value]) => [h("dt", {}, t(key)), h("dd", { "data-rule": key.slice(6) }, value)])),
  );
}
