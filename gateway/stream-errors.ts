// How a stream the gateway serves ends when the gateway itself cannot go on: the event log failed, or the client
// fell too far behind. A client is told a code and a generic sentence, never the log's own words (a Redis
// error names hosts, ports, commands and server state: backend internals that are not the client's business).
import { EventLogError, OpenAIRxError } from '../lib/errors.js';
import { GatewayHttpError } from './errors.js';

/**
 * Why the gateway ended a stream it serves:
 * - `log_unavailable`: the events this reader needs were to come from the event log, which failed (unreachable,
 *   a stream past its `maxEvents` / `maxBytes`, a write refused). Retryable: the log may be back later.
 * - `client_too_slow`: the client fell more than `limits.maxPendingBytes` behind a live stream the event log
 *   could not keep for it. Not retryable as such: what was not recorded cannot be read again.
 */
export type GatewayStreamErrorCode = 'log_unavailable' | 'client_too_slow';

const MESSAGES: Readonly<Record<GatewayStreamErrorCode, string>> = {
  log_unavailable: "The gateway's event log is unavailable, so the rest of this stream cannot be read from it.",
  client_too_slow: 'The client read this stream too slowly: more of it waited than the gateway keeps for one client while its event log cannot record it.',
};

/**
 * A stream the gateway ended itself: written to the client as the final `event: error` (Responses) or
 * `data: {"error":…}` (Chat Completions) with `code`, and a message of the gateway's own.
 */
export class GatewayStreamError extends OpenAIRxError {
  override readonly name = 'GatewayStreamError';
  override readonly retryable: boolean;
  constructor(readonly code: GatewayStreamErrorCode) {
    super(MESSAGES[code]);
    this.retryable = code === 'log_unavailable';
  }
}

/**
 * What a reader whose events come from the log may be told about a failure: a failure of the log itself (an
 * `EventLogError`, whose message quotes the store) or any failure once `logFailed()` says the log stopped
 * recording this stream (the reader's source ran dry because of it) is `log_unavailable`; anything else passes
 * (the upstream's errors, an interrupted stream: the library's own, already safe to show).
 */
export function readerError(e: unknown, logFailed: () => boolean = () => false): unknown {
  if (e instanceof GatewayStreamError) return e;
  if (e instanceof EventLogError || logFailed()) return new GatewayStreamError('log_unavailable');
  return e;
}

/** The JSON answer to a request the log could not serve (before any stream started): a 503, no internals. */
export function logUnavailable(): GatewayHttpError {
  return new GatewayHttpError(503, MESSAGES.log_unavailable, { type: 'server_error', code: 'log_unavailable' });
}

/** Runs `f`; a failure of the log becomes the client-safe 503 ({@link logUnavailable}). */
export async function orLogUnavailable<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw e instanceof EventLogError ? logUnavailable() : e;
  }
}
