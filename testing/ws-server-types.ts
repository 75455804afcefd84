// What the loopback Responses WebSocket server is told (answers, faults, limits) and what it records and counts.
import type { IncomingHttpHeaders, Server } from 'node:http';

/** How to answer a `response.create`: SSE transcript text, or the event payloads themselves. */
export type ResponsePlan = string | ReadonlyArray<Record<string, unknown>>;

export interface WebSocketServerFaults {
  /** Drop each connection (no close frame: the client sees 1006) after it has sent this many frames. */
  readonly dropAfterFrames?: number;
  /** After this many frames, send one malformed frame that names the lane of the next frame. */
  readonly malformedAfterFrames?: number;
  /** After this many frames, send `websocket_connection_limit_reached` and close the connection. */
  readonly connectionLimitAfterFrames?: number;
}

/**
 * What to do to one `response.create` instead of answering it normally (the WebSocket side of `Fault`):
 * - `drop`: send `afterEvents` frames of the response (or as many whole frames as fit in `afterBytes`), then
 *   drop the connection without a close frame (the client sees 1006).
 * - `stall`: send that many frames, then nothing more for this response (the connection stays open).
 * - `status`: answer with an `error` event carrying `status` and an OpenAI-style `error` object instead.
 * - `ok`: answer normally.
 */
export type WebSocketResponseFault =
  | { readonly type: 'drop'; readonly afterEvents?: number; readonly afterBytes?: number }
  | { readonly type: 'stall'; readonly afterEvents?: number; readonly afterBytes?: number }
  | { readonly type: 'status'; readonly status: number; readonly code?: string | null; readonly message?: string; readonly errorType?: string }
  | { readonly type: 'ok' };

/** What the server did with one `response.create` (warm-ups included). */
export interface WebSocketResponseRecord {
  /** 0-based, in the order the responses started. */
  readonly index: number;
  /** Which connection (0-based, in the order they opened). */
  readonly connection: number;
  readonly lane: string | undefined;
  /** The client event as received. */
  readonly request: Record<string, unknown>;
  /** The connection's handshake headers (credentials included: redact before logging). */
  readonly headers: IncomingHttpHeaders;
  readonly responseId: string;
  readonly fault: WebSocketResponseFault | undefined;
  readonly framesSent: number;
  readonly bytesSent: number;
  readonly openedAt: number;
  readonly closedAt: number | undefined;
  /** `completed` once its last frame went out; otherwise how its connection ended first. */
  readonly outcome: 'completed' | 'dropped' | 'client-closed' | 'server-closed' | undefined;
}

export interface ResponsesWebSocketServerOptions {
  /**
   * The answer to each `response.create` (its response id is replaced by a fresh one, and `stream_id` added).
   * Default: a generated text response with `metadata.loopback_deltas` deltas (default 5), echoing the
   * request's `metadata`. `metadata.loopback_hold: "true"` pauses it after `response.in_progress` until steered.
   * Per-request faults, also in `metadata`: `loopback_duplicate_terminal: "true"` sends the terminal frame twice;
   * `loopback_bad_terminal: "anonymous"` replaces it with a cut frame that names no lane, `"untyped"` with one
   * that names its lane but no type; `loopback_invalid_utf8: "text" | "binary"` sends the first delta with an
   * invalid UTF-8 byte in it, as a text or binary frame; `loopback_big_frame: "<n>"` pads the first delta to
   * at least n bytes.
   */
  readonly respond?: ResponsePlan | ((request: Record<string, unknown>, index: number, record: WebSocketResponseRecord) => ResponsePlan | undefined);
  /** A fault for each `response.create` (not for `generate: false` warm-ups); `undefined` answers normally. */
  readonly fault?: (request: Record<string, unknown>, record: WebSocketResponseRecord) => WebSocketResponseFault | undefined;
  /** Milliseconds between the frames of a response. Default 0 (one frame per response per turn of the event loop). */
  readonly chunkDelayMs?: number;
  /** Called as each response starts (before its fault and answer are chosen). */
  readonly onResponseStart?: (record: WebSocketResponseRecord) => void;
  /** Called once each started response has sent its last frame, or its connection ended first. */
  readonly onResponseEnd?: (record: WebSocketResponseRecord) => void;
  /** Responses run at once per connection (the protocol's 16); more are queued server-side and counted. */
  readonly maxInFlight?: number;
  /** Named lanes per connection (the protocol's 32); one more is `websocket_stream_limit_reached`. */
  readonly maxLanes?: number;
  readonly faults?: WebSocketServerFaults;
  /** Answer pings (default true); `false` simulates a dead peer for heartbeat tests. */
  readonly autoPong?: boolean;
  /**
   * Take the upgrade requests of this (listening) HTTP server at `path` instead of listening on a port of
   * its own, so one origin serves SSE and WebSocket mode as the API does. `close()` leaves the server open.
   */
  readonly attach?: { readonly server: Server; readonly path: string };
}

export interface WebSocketServerCounters {
  connections: number;
  /** Frames sent to clients (all connections). */
  frames: number;
  /** Client events received, by type. */
  received: Record<string, number>;
  /** Most `response.create`s received and not yet finished on one connection at once: what the client sent. */
  maxInFlight: number;
  /** Most unfinished `response.create`s in one lane at once (1 means the client kept lanes FIFO). */
  maxLaneDepth: number;
  /** Error codes sent. */
  errors: Record<string, number>;
  warmups: number;
  steers: { accepted: number; pending: number; failed: number };
}

export interface ResponsesWebSocketServer {
  /** `ws://127.0.0.1:<port>/v1/responses` (on a port of its own any path is accepted; attached, only `path`). */
  readonly url: string;
  readonly port: number;
  readonly counters: WebSocketServerCounters;
  /** The handshake headers of every connection, in order (to check authentication). */
  readonly handshakes: IncomingHttpHeaders[];
  /** Drops every connection now (no close frame). */
  dropAll(): void;
  /** Terminates every client and stops listening. */
  close(): Promise<void>;
}
