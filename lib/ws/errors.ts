import { OpenAIRxError } from '../errors.js';

// Errors of the WebSocket transport. Like every error of the library, none carries headers or the key.

/** Close codes after which opening a new connection can help (going away, abnormal, server restart, try again). */
const RETRYABLE_CLOSE = new Set([1001, 1005, 1006, 1011, 1012, 1013, 1014]);

/**
 * The connection ended (or never opened) while something still depended on it. `retryable` says whether a
 * new connection can help; the protocol's 60-minute limit (`websocket_connection_limit_reached`) is one
 * such case. A new connection starts with an empty cache: `store: false` responses are gone.
 */
export class WebSocketClosedError extends OpenAIRxError {
  override readonly name = 'WebSocketClosedError';
  readonly code = 'websocket_closed';
  override readonly retryable: boolean;
  constructor(
    /** The WebSocket close code (1006 when the connection broke without one). */
    readonly closeCode: number,
    /** The close reason the peer sent, or what this library saw (never a header). */
    readonly closeReason: string,
    /** The protocol error code that preceded the close, e.g. `websocket_connection_limit_reached`. */
    readonly errorCode?: string,
  ) {
    super(`WebSocket closed with code ${closeCode}${closeReason ? ` (${closeReason})` : ''}${errorCode ? `: ${errorCode}` : ''}`);
    this.retryable = errorCode === 'websocket_connection_limit_reached' || RETRYABLE_CLOSE.has(closeCode);
  }
}

/** `send()` after the socket started closing. */
export class WebSocketNotOpenError extends OpenAIRxError {
  override readonly name = 'WebSocketNotOpenError';
  readonly code = 'websocket_not_open';
  constructor(readonly state: string) {
    super(`cannot send: the WebSocket is ${state}`);
  }
}

/** A client event that the protocol would reject (bad `type`, bad `stream_id`, missing fields). */
export class InvalidClientEventError extends OpenAIRxError {
  override readonly name = 'InvalidClientEventError';
  readonly code: string;
  constructor(
    readonly reason: string,
    readonly path: string,
    readonly eventType?: string,
  ) {
    super(`invalid client event${eventType ? ` ${JSON.stringify(eventType)}` : ''}: ${reason}${path ? ` at ${path}` : ''}`);
    this.code = path === 'stream_id' ? 'invalid_stream_id' : 'invalid_client_event';
  }
}

/**
 * One lane's request or response failed; the other lanes carry on. `laneMux` emits it as a value (see
 * `isLaneError`); `streamResponseOverSocket` errors with it.
 *
 * `code` is the protocol's (`previous_response_not_found`, `invalid_stream_id`,
 * `websocket_stream_limit_reached`, `websocket_connection_limit_reached`, …) or this library's
 * (`websocket_closed`, `decode_error`, `invalid_client_event`, `response_failed`).
 */
export class LaneError extends OpenAIRxError {
  override readonly name = 'LaneError';
  /** Tag so a `LaneError` can sit in an event stream next to server events. */
  readonly type = 'lane.error' as const;
  readonly code: string;
  override readonly retryable: boolean;
  constructor(
    /** The lane (`undefined` for the default lane). */
    readonly stream_id: string | undefined,
    code: string,
    message: string,
    retryable: boolean,
    /** The request this error answers, when there is one. */
    readonly request?: unknown,
    /** The underlying typed error or server event. */
    override readonly cause?: unknown,
  ) {
    super(`lane ${stream_id === undefined ? '(default)' : JSON.stringify(stream_id)}: ${message}`);
    this.code = code;
    this.retryable = retryable;
    Object.defineProperty(this, 'request', { enumerable: false });
    Object.defineProperty(this, 'cause', { enumerable: false });
  }
}

export function isLaneError(e: unknown): e is LaneError {
  return e instanceof LaneError;
}
