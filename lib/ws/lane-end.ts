import type { OpenAIRxError } from '../errors.js';
import type { ResponsesServerEvent } from '../events/websocket.js';
import { errorDetails } from '../decode/provider-error.js';
import { WebSocketClosedError } from './errors.js';

// How a protocol `error` event and the end of the socket read as `LaneError` fields.

const CONNECTION_LIMIT = 'websocket_connection_limit_reached';

export interface ProtocolError {
  readonly code: string;
  readonly message: string;
  /** Only the connection limit can be helped by a new connection. */
  readonly retryable: boolean;
  /** The connection limit without a lane: every running response is over. */
  readonly connectionWide: boolean;
}

/** Reads an `error` event in the WebSocket shape (`error: { code, message }`) or the SSE one (top level). */
export function errorOf(e: ResponsesServerEvent): ProtocolError {
  // Read as the SSE decoders read a provider's error, so a field of the wrong type never passes for a code.
  const d = errorDetails(e as unknown as Record<string, unknown>);
  const code = d.code ?? 'error';
  return { code, message: d.message, retryable: code === CONNECTION_LIMIT, connectionWide: code === CONNECTION_LIMIT && (e as { stream_id?: unknown }).stream_id === undefined };
}

export interface SocketEnd {
  readonly error: OpenAIRxError;
  /** The `LaneError` code of the requests it ends: the protocol's error code when one preceded the close. */
  readonly code: string;
  readonly retryable: boolean;
}

export function endOf(error: OpenAIRxError): SocketEnd {
  const code = error instanceof WebSocketClosedError ? (error.errorCode ?? error.code) : error.code;
  return { error, code, retryable: error.retryable };
}
