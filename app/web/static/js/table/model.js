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
 *   lastDeal: {number: number, result: any, record: any, line: any} | null,
 *   sit: (seat: number) => void,
 *   leave: () => void,
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

export {};
