import { h } from "../dom.js";

/**
 * What every table panel renders from: the newest table state plus the page's own choices.
 * @typedef {import("../socket.js").TableState} TableState
 * @typedef {{
 *   state: TableState,
 *   names: string[],
 *   mySeat: number | null,
 *   legal: any[],
 *   canAct: boolean,
 *   act: (action: any) => void,
 *   selected: Set<string>,
 *   toggle: (card: string) => void,
 *   lastDeal: {number: number, result: any, record: any, line: any, after?: any[]} | null,
 *   noTalonOpen: boolean,
 *   setNoTalonOpen: (open: boolean) => void,
 *   clocks: import("../clocks.js").Clocks,
 *   sit: (seat: number) => void,
 *   leave: () => void,
 *   touch?: boolean,
 *   armed?: string | null,
 *   arm: (card: string) => void,
 * }} Model
 */

/** Legal actions of one type. @param {Model} model @param {string} type */
export function legalOf(model, type) {
  return model.legal.filter((a) => a.type === type);
}

/** The seat's display name. @param {Model} model @param {number} seat */
export function nameOf(model, seat) {
  return model.names[seat] ?? `#${seat}`;
}

/**
 * A control for one action. Pressable when the action is legal and the page may send; otherwise marked
 * `aria-disabled` rather than `disabled`, so a keyboard user still reaches it and hears why it is inert,
 * and a press does nothing.
 * @param {Model} model
 * @param {any} action the action to send, or undefined when there is none now
 * @param {Record<string, unknown>} attrs
 * @param {...import("../dom.js").Children} children
 */
export function actionButton(model, action, attrs, ...children) {
  const usable = Boolean(action && model.canAct);
  return h(
    "button",
    { type: "button", ...attrs, "aria-disabled": usable ? undefined : "true", onclick: usable ? () => model.act(action) : undefined },
    ...children,
  );
}
