// The table protocol's frame types, made from its JSON Schema by `python -m app.protocol typescript`
// (app/protocol/typescript.py). Do not edit: change the pydantic models, then regenerate.

export interface AckMessage {
  duplicate?: boolean;
  seq: number;
  type?: "ack";
  v: number;
}

/**
 * A game action for the connection's own seat. ``seq`` increases by at least 1 per new command;
 * resending a command with the last applied ``seq`` is acknowledged as a duplicate and not applied again.
 */
export interface ActionMessage {
  action: Record<string, unknown>;
  seq: number;
  type: "action";
}

/**
 * One table chat message (issue 22 §4): plain text (never HTML), or a preset's key (``preset``) that
 * each page shows in its own language.
 */
export interface ChatEntry {
  at: number;
  channel: string;
  id: number;
  preset?: string | null;
  seat: number | null;
  text: string;
  user: string;
}

/**
 * A new chat message at the table, sent only to the connections that may read its channel (the
 * spectators' channel never to a seated player) and not to those who muted its writer.
 */
export interface ChatFrame {
  message: ChatEntry;
  table: number;
  type?: "chat";
}

/**
 * To the muted user: a moderator muted him in this room (``site_wide`` false) or everywhere until
 * ``until`` (seconds since the epoch).
 */
export interface ChatMutedFrame {
  reason: string;
  site_wide: boolean;
  table: number;
  type?: "chat_muted";
  until: number;
}

/** A moderator removed a message: the page drops it. */
export interface ChatRemovedFrame {
  id: number;
  table: number;
  type?: "chat_removed";
}

/**
 * The table's clocks stopped or started without a step (not versioned: ``v`` is the table's current
 * version). ``paused``: the clocks stand still; ``reason`` says why (RULES §8.6): ``storage`` (the
 * server cannot store: its database is away or hung) or ``reconnect`` (after a restart or a takeover, the
 * seat to move has not reconnected yet, at most ``grace`` 10 s). With ``paused`` false the running
 * seat's clock runs again from the moment the frame was sent.
 */
export interface ClockMessage {
  clock: Record<string, unknown> | null;
  paused: boolean;
  reason?: "storage" | "reconnect" | null;
  table: number;
  type?: "clock";
  v: number;
}

export interface ErrorMessage {
  code: string;
  message: string;
  seq?: number | null;
  type?: "error";
}

export interface EventFrame {
  data: Record<string, unknown>;
  kind: string;
}

/**
 * How the game ended: ``reason`` is pool_complete, timeout, interrupted, server_fault or round_end (a
 * tournament round, RULES §9.3).
 */
export interface GameOutcome {
  reason: string;
  settlement?: Record<string, unknown> | null;
}

export interface PingMessage {
  id?: number | null;
  type: "ping";
}

export interface PongMessage {
  id?: number | null;
  type?: "pong";
}

/** Connection status of every seat (not versioned: it is not part of the game). */
export interface PresenceMessage {
  seats: SeatInfo[];
  table: number;
  type?: "presence";
}

/** Ask for a full snapshot (sent by a client that saw a version gap). */
export interface ResyncMessage {
  type: "resync";
  v?: number | null;
}

export interface SeatInfo {
  connected: boolean;
  robot?: string | null;
  seat: number;
  user: string | null;
}

export interface SnapshotMessage {
  actions?: number;
  clock: Record<string, unknown> | null;
  last_seq?: number;
  legal: Record<string, unknown>[];
  life?: Record<string, unknown> | null;
  outcome?: GameOutcome | null;
  seat: number | null;
  seats: SeatInfo[];
  sheet: Record<string, unknown> | null;
  status: string;
  table: number;
  type?: "snapshot";
  v: number;
  view: Record<string, unknown> | null;
}

/**
 * One step (a player's action with the server's moves that follow it: the next shuffle, automatic
 * calls, the robot's cards). ``sheet`` is present only when the score sheet changed (or the game is over).
 * ``actions``: the length of the table's action log after this step.
 */
export interface UpdateMessage {
  actions?: number;
  clock: Record<string, unknown> | null;
  events: EventFrame[];
  legal: Record<string, unknown>[];
  life?: Record<string, unknown> | null;
  outcome?: GameOutcome | null;
  sheet: Record<string, unknown> | null;
  status: string;
  table: number;
  type?: "update";
  v: number;
  view: Record<string, unknown> | null;
}

/** Every client message. */
export type ClientMessage = ActionMessage | PingMessage | ResyncMessage;

/** Every server message. */
export type ServerMessage = AckMessage | ChatFrame | ChatMutedFrame | ChatRemovedFrame | ClockMessage | ErrorMessage | PongMessage | PresenceMessage | SnapshotMessage | UpdateMessage;

/**
 * The error codes the protocol documents (`error_codes`):
 * - `bad_json`: the frame is not a JSON object
 * - `conflict`: the change collided with one stored meanwhile; nothing changed, try again
 * - `engine_error`: the rules refused the action (no narrower code applies)
 * - `forbidden`: the role does not allow this
 * - `frame_too_large`: the frame is larger than the server accepts
 * - `game_over`: the game has ended
 * - `illegal_action`: the rules forbid this action now
 * - `invalid_message`: a field is missing or has the wrong type
 * - `malformed_action`: the action could not be parsed
 * - `moved`: another worker runs the table: the close reason is its websocket URL
 * - `not_found`: no such table
 * - `not_seated`: only a seated player may act (spectators only watch)
 * - `not_started`: the game has not started (seats are not full)
 * - `not_your_seat`: the action names another seat than the connection's
 * - `not_your_turn`: the table waits for another seat
 * - `private_room`: the table's private room is closed to this user as a spectator
 * - `rate_limited`: too many messages; this one was dropped
 * - `seq_reused`: the last applied sequence number was sent again with another action
 * - `server_error`: the server could not apply the action; nothing changed
 * - `stale_seq`: the sequence number is not above the last applied one
 * - `table_busy`: too many commands wait at this table; this one was dropped, try again
 * - `table_elsewhere`: another worker took the table over meanwhile; reconnect
 * - `too_many_connections`: the user or the table has as many connections as allowed
 * - `unauthorized`: missing, invalid or expired token
 * - `unknown_type`: the message type is not one the server knows
 */
export type DocumentedErrorCode = "bad_json" | "conflict" | "engine_error" | "forbidden" | "frame_too_large" | "game_over" | "illegal_action" | "invalid_message" | "malformed_action" | "moved" | "not_found" | "not_seated" | "not_started" | "not_your_seat" | "not_your_turn" | "private_room" | "rate_limited" | "seq_reused" | "server_error" | "stale_seq" | "table_busy" | "table_elsewhere" | "too_many_connections" | "unauthorized" | "unknown_type";
