import { defer, filter, Observable, repeat, takeWhile } from 'rxjs';
import { AbortedError, InvalidOptionError } from '../errors.js';
import { invalidOption, oneOf, optionalFunction } from '../options.js';
import { headerSecrets, secretsOf } from '../redact.js';
import { exchange } from './from-durable-stream-http.js';
import { retryPolicyOf, retryReads, type DurableStreamRetryOptions } from './from-durable-stream-retry.js';
import { END, PROGRESS, type ExchangeContext, type ReadState, type Step } from './from-durable-stream-steps.js';

export type { DurableStreamRetryDelay, DurableStreamRetryOptions } from './from-durable-stream-retry.js';

/** A batch of a JSON-mode stream (`application/json`): its messages, parsed. */
export interface DurableStreamMessages<T = unknown> {
  /** The resume point: the offset AFTER these messages. Pass it as `offset` to read on from here. */
  readonly offset: string;
  readonly messages: readonly T[];
}

/** A batch of any other stream: its bytes as they were appended (SSE's base64 already decoded). */
export interface DurableStreamBytes {
  /** The resume point: the offset AFTER these bytes. Pass it as `offset` to read on from here. */
  readonly offset: string;
  readonly bytes: Uint8Array;
}

export type DurableStreamBatch<T = unknown> = DurableStreamMessages<T> | DurableStreamBytes;

export interface FromDurableStreamOptions {
  /** Where to start: an offset a server gave (a batch's `offset`), `-1` the start (default), or `now` the tail. */
  readonly offset?: string;
  /**
   * What to do once caught up. `'long-poll'` (default): one request per batch, held by the server until data comes;
   * plain request and answer, so it passes every proxy and CDN (the protocol's cursors are made for them) and needs
   * no decoding of SSE or base64. `'sse'`: one held connection, lower latency under a steady append rate; the reader
   * reconnects from the last control event's offset when the server closes it (about every 60 s).
   * `false`: complete once caught up.
   */
  readonly live?: 'sse' | 'long-poll' | false;
  /** Sent with every request (e.g. `authorization`). Their values never appear in an error. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Aborts the read: the request is aborted and the Observable errors with `AbortedError`. */
  readonly signal?: AbortSignal;
  /** The fetch to use. Default `globalThis.fetch`. */
  readonly fetch?: typeof fetch;
  /** Reconnects after network errors, 408, 429 and 5xx. */
  readonly retry?: DurableStreamRetryOptions;
}

const LIVE_MODES = ['sse', 'long-poll', false] as const;
// Section 8: offsets never hold these (they would break the query string).
const BAD_OFFSET = /[,&=?/]/;

/** The checks, before anything is sent: each failure an `InvalidOptionError` naming the option. */
function contextOf(url: string | URL, options: FromDurableStreamOptions): { ctx: ExchangeContext; offset: string } {
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'an object', options);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalidOption('url', 'an absolute http(s) URL', url);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidOptionError('url', `expected an http(s) URL, got the scheme ${JSON.stringify(u.protocol)}`);
  if (u.username !== '' || u.password !== '') throw new InvalidOptionError('url', 'credentials in the URL (user:password@) are refused: send them in `headers`');
  u.hash = '';
  const offset = options.offset ?? '-1';
  if (typeof offset !== 'string' || offset === '' || BAD_OFFSET.test(offset)) throw invalidOption('offset', 'an offset a server gave, -1 or now', offset);
  const live = oneOf('live', options.live, LIVE_MODES, 'long-poll');
  const headers = options.headers ?? {};
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) throw invalidOption('headers', 'an object of header names to strings', headers);
  for (const [k, v] of Object.entries(headers)) if (typeof v !== 'string') throw new InvalidOptionError(`headers.${k}`, `expected a string, got ${typeof v}`);
  if (options.signal !== undefined && (typeof options.signal !== 'object' || typeof options.signal?.aborted !== 'boolean')) throw invalidOption('signal', 'an AbortSignal', options.signal);
  const f = optionalFunction('fetch', options.fetch) ?? globalThis.fetch;
  if (typeof f !== 'function') throw new InvalidOptionError('fetch', 'no fetch in this runtime: pass one');
  // The query may carry a token: errors show the origin and path only; its values are masked wherever they echo.
  const querySecrets = [...u.searchParams.values()].filter((v) => v.length >= 8);
  const ctx: ExchangeContext = {
    url: u,
    shownUrl: `${u.origin}${u.pathname}`,
    headers: { ...headers },
    secrets: secretsOf(...headerSecrets(headers), ...querySecrets),
    fetch: f.bind(globalThis),
    live,
  };
  return { ctx, offset };
}

const isBatch = <T>(s: Step): s is DurableStreamBatch<T> => s !== PROGRESS && s !== END;

/**
 * Reads a stream of any Durable Streams server: catch-up from `offset`, chunk by chunk (`Stream-Next-Offset`) until
 * `Stream-Up-To-Date`, then live in the `live` mode. Cold: each subscription reads on its own. Each emission is a
 * batch: `{ offset, messages }` for a JSON-mode stream, `{ offset, bytes }` otherwise, where `offset` is the RESUME
 * POINT (after the batch): save it, and a later `fromDurableStream(url, { offset })` reads exactly what follows.
 *
 * Completes at a closed stream's end (`Stream-Closed` / `streamClosed`), or once caught up with `live: false`.
 * Network errors, 408, 429 and 5xx reconnect from the last batch emitted (never a batch twice, never a gap) within
 * `retry`'s budget; other answers error with `DurableStreamError` (`not_found`, `gone`, `forbidden`, `bad_request`,
 * …), whose `url` has no query and which carries no header. Unsubscribing (or `signal`) aborts the request.
 * Browser-safe: fetch and web streams only.
 */
export function fromDurableStream<T = unknown>(url: string | URL, options: FromDurableStreamOptions = {}): Observable<DurableStreamBatch<T>> {
  return new Observable<DurableStreamBatch<T>>((subscriber) => {
    let ctx: ExchangeContext;
    let state: ReadState;
    let policy;
    try {
      const checked = contextOf(url, options);
      ctx = checked.ctx;
      state = { offset: checked.offset, cursor: undefined, caughtUp: false, json: false };
      policy = retryPolicyOf(options.retry);
    } catch (e) {
      subscriber.error(e);
      return undefined;
    }
    const signal = options.signal;
    if (signal?.aborted) {
      subscriber.error(new AbortedError());
      return undefined;
    }
    const reads = defer(() => exchange(ctx, state)).pipe(
      retryReads(policy),
      repeat(),
      takeWhile((s) => s !== END),
      filter(isBatch<T>),
    );
    const onAbort = (): void => {
      inner.unsubscribe();
      subscriber.error(new AbortedError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const inner = reads.subscribe({ next: (b) => subscriber.next(b), error: (e: unknown) => subscriber.error(e), complete: () => subscriber.complete() });
    return () => {
      signal?.removeEventListener('abort', onAbort);
      inner.unsubscribe();
    };
  });
}
