import type { Observable } from 'rxjs';
import type { DecodeError } from '../errors.js';
import type { ResponsesClientEvent, ResponsesServerEvent } from '../events/websocket.js';

/** The connection's life: `connecting` → `open` → `closing` → `closed` (or straight to `closed` on failure). */
export type ConnectionState = 'connecting' | 'open' | 'closing' | 'closed';

/**
 * A frame that could not be decoded. It stays on `events$` (so one bad frame never ends the stream for the
 * other lanes) with the `stream_id` and `type` read from it where possible, so `laneMux` fails that lane only.
 */
export interface FrameErrorEvent {
  readonly type: 'openai_rx.frame_error';
  readonly stream_id?: string;
  /** The event type the frame claimed, when readable. */
  readonly event_type?: string;
  readonly error: DecodeError;
}

/** What `events$` carries: every decoded server event, plus `FrameErrorEvent` for undecodable frames. */
export type SocketEvent = ResponsesServerEvent | FrameErrorEvent;

/**
 * The part of a socket that `laneMux` needs: a hot stream of server events and a way to send.
 * `ResponsesSocket` implements it; a test can use a Subject and a recording `send`.
 */
export interface LaneSocket {
  /** Server events. It errors with `WebSocketClosedError` when the connection drops, completes on `close()`. */
  readonly events$: Observable<SocketEvent>;
  /** Sends (or queues until open) one client event; throws a typed error when it cannot. */
  send(event: ResponsesClientEvent): void;
  /** The default of `LaneOptions.terminalTimeoutMs` for the lanes of this socket (ms). */
  readonly terminalTimeoutMs?: number;
}

/** The subset of the WHATWG `WebSocket` (and of `ws`) this library uses. */
export interface WebSocketLike {
  readonly readyState: number;
  binaryType?: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'message' | 'close' | 'error', listener: (ev: never) => void): void;
  removeEventListener?(type: string, listener: (ev: never) => void): void;
}

/** A `ws`-style socket: adds ping/pong, a hard `terminate()`, and messages as raw bytes. */
export interface NodeWebSocketLike extends WebSocketLike {
  ping(): void;
  terminate(): void;
  on(event: 'pong', listener: () => void): unknown;
  /** Text frames arrive as bytes too (with `skipUTF8Validation`), so invalid UTF-8 fails one lane, not the connection. */
  on(event: 'message', listener: (data: unknown, isBinary: boolean) => void): unknown;
}

/** What a `ws`-compatible constructor receives besides the URL. */
export interface NodeWebSocketOptions {
  headers?: Record<string, string>;
  /** The largest frame accepted (bytes); a larger one closes the connection with 1009. */
  maxPayload?: number;
  /** Deliver text frames unchecked: the client checks UTF-8 itself, per frame. */
  skipUTF8Validation?: boolean;
}

/**
 * A WebSocket constructor: the global one (`new C(url)`) or a `ws`-compatible one, which receives
 * `(url, { headers, maxPayload, skipUTF8Validation })`.
 */
export type WebSocketConstructorLike = new (url: string, options?: NodeWebSocketOptions) => WebSocketLike;
