// What `connectResponsesSocket` is configured with and what it returns.
import type { Observable } from 'rxjs';
import type { ValidateMode } from '../events/decode.js';
import type { ResponsesClientEvent, ResponsesServerEvent } from '../events/websocket.js';
import type { ResponseOverSocketOptions, SocketResponseBody } from './response.js';
import type { ConnectionState, LaneSocket, SocketEvent, WebSocketConstructorLike } from './types.js';

export interface ResponsesSocketConfig {
  /**
   * Sent as `Authorization: Bearer …` (Node, or any `ws`-style constructor). Default: `OPENAI_API_KEY` in
   * Node. Browsers cannot set WebSocket headers, and a key in the URL or page would leak, so a key is
   * refused there (`InvalidOptionError`): point `url` at your own relay, which authenticates the user
   * (cookie / session) and opens the upstream socket with the key server-side.
   */
  readonly apiKey?: string;
  /** Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`; the URL is `{baseURL}/responses` with http→ws, https→wss. */
  readonly baseURL?: string;
  /** The full `ws://` / `wss://` URL; overrides `baseURL`. */
  readonly url?: string;
  /** Extra handshake headers (`ws`-style constructors only). */
  readonly headers?: Record<string, string>;
  /**
   * A WebSocket constructor (tests, other runtimes). Default in Node: `ws` (an optional peer dependency, loaded
   * when the socket opens); without it the global `WebSocket` (Node 22+) for a connection that sends no headers
   * (no API key, no `headers`), else `events$` errors with `MissingPeerDependencyError` naming ws. Elsewhere: the global `WebSocket`.
   */
  readonly WebSocket?: WebSocketConstructorLike;
  /**
   * Ping period in ms for sockets that can ping (`ws`): keeps an idle connection alive, and a connection that
   * answers no ping within one period is dropped as dead (`WebSocketClosedError` 1006, retryable).
   * Default 30000; 0 turns it off.
   */
  readonly heartbeatMs?: number;
  /** Client events queued before the socket opens; one more throws `LimitExceededError`. Default 1024. */
  readonly maxSendBuffer?: number;
  /** `'strict'` (default) checks every documented server event against its codec; `'off'` skips codecs. */
  readonly validate?: ValidateMode;
  /** How long `close()` waits for the closing handshake before dropping the connection (ms). Default 2000. */
  readonly closeTimeoutMs?: number;
  /**
   * The largest frame accepted (bytes; `ws`'s `maxPayload`). A larger one ends the connection with
   * `LimitExceededError('maxFrameSize')`, not retryable: the same request would bring it again.
   * Default 128 MiB (a 64 MiB image event fits).
   */
  readonly maxFrameSize?: number;
  /**
   * How long (ms) a lane whose response lost a frame (undecodable, or naming no lane) waits for more of that
   * response before giving up on its terminal event and moving on (`LaneError` `terminal_timeout`).
   * Default 60000; `laneMux`'s option of the same name overrides it.
   */
  readonly terminalTimeoutMs?: number;
}

/** One Responses WebSocket connection. Created by `connectResponsesSocket`; owned (and closed) by the caller. */
export interface ResponsesSocket extends LaneSocket {
  /**
   * Every server event, decoded with the SSE codecs (undocumented types pass through), shared by all
   * subscribers (hot: late subscribers see later events only). Undecodable frames (invalid UTF-8
   * included) arrive as `FrameErrorEvent` values. Completes after `close()`; errors with
   * `WebSocketClosedError` on a drop, `LimitExceededError('maxFrameSize')` after a frame over the limit.
   */
  readonly events$: Observable<SocketEvent>;
  /** The connection state, current value first. Completes once `closed`. */
  readonly state$: Observable<ConnectionState>;
  readonly state: ConnectionState;
  readonly url: string;
  readonly terminalTimeoutMs: number;
  /**
   * Validates and sends one client event (queued until the socket is open). Throws
   * `InvalidClientEventError`, `LimitExceededError` (queue full) or `WebSocketNotOpenError` (closing/closed).
   */
  send(event: ResponsesClientEvent): void;
  /** Closes the connection (normal closure); pending timers are cleared so nothing keeps the process alive. */
  close(code?: number, reason?: string): void;
  /** Sends one `response.create` and streams that response's events; see `streamResponseOverSocket`. */
  response(body: SocketResponseBody, options?: ResponseOverSocketOptions): Observable<ResponsesServerEvent>;
}
