import type { Subscription } from 'rxjs';
import type { ResponsesClientEvent, ResponsesServerEvent } from '../events/websocket.js';
import type { LaneError } from './errors.js';

// The vocabulary shared by the lane hub (one per socket) and its users (each laneMux subscription, each
// socket.response()): what a request is, where its outcome goes, and what a lane holds.

/** The protocol's limit of responses in flight on one connection, across every user of the socket. */
export const PROTOCOL_MAX_IN_FLIGHT = 16;
/** Default wait for more of a response that lost a frame, before its lane moves on (ms). */
export const DEFAULT_TERMINAL_TIMEOUT = 60_000;

export interface LaneOptions {
  /** Responses this user keeps in flight at once (default 16). All users of one socket together never exceed the protocol's 16. */
  readonly maxInFlight?: number;
  /** Distinct named lanes this user may use (the protocol allows 32 per connection). */
  readonly maxLanes?: number;
  /**
   * How long (ms) a lane whose response lost a frame (undecodable, or naming no lane) waits for more of that
   * response before giving up on its terminal event and moving on. Each frame of the response restarts the
   * wait. Default: the socket's `terminalTimeoutMs`, else 60000.
   */
  readonly terminalTimeoutMs?: number;
}

/** Where one request's outcome goes. */
export interface LaneSink {
  /** A server event of this request's lane (its response, or the answer to a steer/inject). */
  event(e: ResponsesServerEvent): void;
  /** The request failed (not sent, refused, undecodable frame, connection lost): it is over. */
  fail(err: LaneError): void;
  /** The response reached its terminal event (after any steered successors), or the steer/inject was answered. */
  done(): void;
}

/** The hub's view of one user: its caps, and where the errors that belong to no request go. */
export interface LaneUser {
  readonly maxInFlight: number;
  readonly terminalTimeoutMs: number;
  /** This user's requests running now (maintained by the hub). */
  inFlight: number;
  /** This user's requests not over yet: queued, running, or steers/injects awaiting their answer (maintained by the hub). */
  pending: number;
  /** Whether errors on this (idle) lane concern this user. */
  knows(laneKey: string): boolean;
  /** An error that belongs to no pending request of this user (a bad frame on an idle lane). */
  orphan(err: LaneError): void;
  /** The socket ended; every pending request has already been failed. */
  ended(err: Error): void;
  /** A request of this user is over: the user may have become idle. */
  settled(): void;
}

export interface LaneRequest {
  readonly seq: number;
  readonly event: ResponsesClientEvent;
  readonly user: LaneUser;
  /** Replaced by a no-op when the user leaves: the response runs on, unseen, and still holds its lane. */
  sink: LaneSink;
  over: boolean;
}

export interface Active {
  readonly req: LaneRequest;
  /** The id of the response running now (the successor's, after a steer); bound by its first lifecycle event. */
  responseId: string | undefined;
  /** Another lane that may not advance until this response is `in_progress` (a fork by `previous_response_id`). */
  forkParent: Lane | undefined;
  /** A steer was accepted: the terminal event ahead belongs to the steered target, not to the lane's end. */
  steerAccepted: boolean;
  /** Between a steered target's terminal event and its successor's `response.created`. */
  awaitingSuccessor: boolean;
  /** The request has failed: the rest of its response is dropped until its terminal. */
  suppressed: boolean;
  /** The lane's previous response was given up (never seen ending): until this one is bound, frames are the old one's. */
  afterLost: boolean;
  /** Armed when a frame of this response may have been lost: how long the lane still waits for more of it. */
  wait: Subscription | undefined;
}

export interface Lane {
  readonly key: string;
  readonly streamId: string | undefined;
  readonly queue: LaneRequest[];
  active: Active | undefined;
  /** Forks of this lane's response that are not `in_progress` yet. */
  blockers: number;
  /** Steers/injects sent on this lane and not answered yet, in order. */
  readonly controls: LaneRequest[];
  /** The last response was given up by a timeout: the next one starts with `afterLost`. */
  lost: boolean;
}

export const DEFAULT_LANE = '';

export const NOOP_SINK: LaneSink = { event() {}, fail() {}, done() {} };

const CONTROL_EVENTS = new Set(['response.steer.accepted', 'response.steer.pending', 'response.steer.failed', 'response.inject.created', 'response.inject.failed']);
// `response.cancelled` (or `.canceled`): where a server ends a cancelled response with it (see isTerminalType).
const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed', 'response.cancelled', 'response.canceled']);

export function isControlEvent(type: string): boolean {
  return CONTROL_EVENTS.has(type);
}

export function isTerminal(type: string | undefined): boolean {
  return type !== undefined && TERMINAL_EVENTS.has(type);
}

export function isSteered(e: ResponsesServerEvent): boolean {
  if (e.type !== 'response.incomplete') return false;
  const r = (e as { response?: { incomplete_details?: { reason?: unknown } | null } }).response;
  return r?.incomplete_details?.reason === 'steered';
}

// The lane hub binds a lane's response by it; the helper lives with the event guards.
export { responseIdOf } from '../events/guards.js';

export function streamIdOf(event: unknown): string | undefined {
  const sid = (event as { stream_id?: unknown } | null)?.stream_id;
  return typeof sid === 'string' ? sid : undefined;
}
