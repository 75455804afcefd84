// What a gateway is configured with, and the defaults filled in once at creation.
import type { IncomingMessage } from 'node:http';
import { env } from '../lib/env.js';
import { checkBaseURL, DEFAULT_BASE_URL, type ClientConfig } from '../lib/http/config.js';
import { memoryEventLog } from '../lib/log/memory.js';
import { redisEventLog } from '../lib/log/redis.js';
import type { EventLog } from '../lib/log/types.js';
import { InvalidOptionError } from '../lib/errors.js';
import { durationMs, invalidOption, nested, nonNegativeInt, oneOf, optionalFunction, positiveDurationMs } from '../lib/options.js';
import { fetchUpstreamOf, type MaskedUpstream } from './answer-masking.js';
import { nodeUpstream } from './upstream-http.js';
import { checkAccessLog, type AccessLogOption } from './access-log.js';
import { parsePassThrough, type PassThroughPattern } from './routes.js';
import { DEFAULT_LEASE_MS, DEFAULT_NOT_FOUND_TIMEOUT_MS } from '../lib/log/defaults.js';

/**
 * Who a request is, as `authorize` decides: `owner` scopes its streams in the log (another owner's stream is
 * a 404), and `apiKey` / `headers` are what goes upstream on its behalf.
 */
export interface GatewayCaller {
  /** The owner of the streams this caller starts (e.g. a user id). */
  readonly owner: string;
  /** The upstream key for this caller. Default: the gateway's `upstream.apiKey`, else `OPENAI_API_KEY`. */
  readonly apiKey?: string;
  /** Extra upstream headers (e.g. `openai-organization`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Where requests go: the fields of a {@link ClientConfig} that a gateway uses, meaning what they mean there
 * (`fromEventLog`'s `upstream` is a whole ClientConfig). `baseURL` as in `OPENAI_BASE_URL`, with its `/v1`
 * (default `OPENAI_BASE_URL`, else `https://api.openai.com/v1`); `apiKey` is used with a custom `authorize`
 * that returns none (never with the default, which forwards the caller's); `fetch` is the operator's way to the
 * upstream (answers are masked all the same), by default an HTTP/1.1 client of the gateway's own with keep-alive connections,
 * or the global `fetch` when the application set a dispatcher of its own for it (an HTTP proxy).
 * Headers come per caller from `authorize`; the gateway's own `timeouts` stand for a client's idle timeout and signal.
 */
export type GatewayUpstream = Pick<ClientConfig, 'baseURL' | 'apiKey' | 'fetch'>;

export interface GatewayLimits {
  /** Largest request body, in bytes; a larger one is a 413. Default 16 MiB. */
  readonly maxBodyBytes?: number;
  /** Most client streams (SSE responses) open at once, and most upstream streams recorded at once; one more is a 429. Default 10 000. */
  readonly maxConcurrentStreams?: number;
  /**
   * Most bytes of a live stream kept in memory for one client that reads slower than the upstream sends, where
   * the event log cannot stand in: a chat stream, a Responses stream whose recording failed (the starting client
   * gets every event from memory, not the log's shorter copy). Past it the stream ends with an error event,
   * code `client_too_slow`. A Responses stream the log still records is let go past it and read back from the
   * log. At most `maxConcurrentStreams` × this in all. Default 1 MiB.
   */
  readonly maxPendingBytes?: number;
}

export interface GatewayTimeouts {
  /** Longest wait for the upstream's first event (or a forwarded request's headers), in ms; then 504. Default 600 000. */
  readonly upstreamMs?: number;
  /** Ends an upstream stream that sends nothing for this long, in ms. Default: off. */
  readonly idleMs?: number;
  /** Longest time to receive a request body, in ms; then 408. Default 30 000. */
  readonly bodyMs?: number;
  /**
   * A `: keep-alive` comment on an idle client stream every this many ms (proxies cut silent connections). Default
   * 15 000; 0 turns it off. Not the WebSocket client's 30-s ping (connectResponsesSocket's `heartbeatMs`): that one keeps the package's own
   * connection to the provider alive, this one a browser's through proxies that cut at 30 to 60 s of silence.
   */
  readonly heartbeatMs?: number;
  /** How long a resume waits for a stream that has not reached the log yet, in ms; then 404. Default 5000 (as fromEventLog's). */
  readonly notFoundMs?: number;
}

export interface GatewayOptions {
  /** Where requests go: `{ baseURL, apiKey?, fetch? }`, the same shape as `fromEventLog`'s `upstream`. Default `{}`. */
  readonly upstream?: GatewayUpstream;
  /**
   * The event log streams are recorded in and resumed from: an {@link EventLog}, a `redis://` / `rediss://`
   * URL (a `redisEventLog` the gateway opens and closes), or `'memory'` (default: one process only).
   */
  readonly log?: EventLog | string;
  /**
   * Makes every streamed `POST /v1/responses` a background response upstream (`background: true, store: true`),
   * so that any instance can continue it after the one that started it died. Default `false`.
   */
  readonly background?: boolean;
  /**
   * The application's auth: who the request is (its `owner`) and the upstream credentials, or a thrown
   * `GatewayHttpError` (401, 403) to refuse it. Default: the client's `Authorization` is required and
   * forwarded upstream, and its SHA-256 is the owner. With `authorize`, callers may share one upstream key, so
   * the gateway itself answers a response or conversation id (in a path, `previous_response_id`,
   * `conversation`) only for the owner it recorded it for; without it, the caller's own key goes upstream and
   * the upstream decides.
   */
  readonly authorize?: (req: IncomingMessage) => GatewayCaller | Promise<GatewayCaller>;
  readonly limits?: GatewayLimits;
  readonly timeouts?: GatewayTimeouts;
  /** The producer's lease in the log, in ms: how soon another instance may take a dead one's stream over. Default 10 000. */
  readonly leaseMs?: number;
  /**
   * Routes forwarded to the upstream as they are, beyond the ones the gateway implements (which are the only
   * ones served by default; any other path is a 404): `'METHOD /v1/path'` patterns, `*` one segment, a last `**`
   * one or more, e.g. `['GET /v1/files', 'POST /v1/files', 'GET /v1/vector_stores/*']`. **Each one exposes what
   * the upstream key can reach there, for the whole organisation, to every caller: no ownership checks.**
   * `/v1/responses/…` and `/v1/conversations/…` are never passed through. Default: none.
   */
  readonly passThrough?: readonly string[];
  /**
   * One JSON line per request (time, method, route pattern, owner hash, status, response id, events, duration,
   * bytes out; never a key, a header or a body): `'stdout'`, or a function given each entry (what it throws is
   * ignored). Default `false`.
   */
  readonly accessLog?: AccessLogOption;
}

export interface ResolvedGatewayOptions {
  readonly baseURL: string;
  readonly upstreamKey: string | undefined;
  /** How the gateway asks its upstream, answers masked: the operator's `fetch`, else node:http (upstream-http.ts). */
  readonly upstream: MaskedUpstream;
  /** Lets the default upstream's idle connections go (the gateway's close). */
  readonly closeUpstream: () => void;
  readonly log: EventLog;
  readonly ownsLog: boolean;
  /**
   * The recording's `maxBatchDelayMs`: 0 with the gateway's own in-memory log, whose append is acknowledged a few
   * microtasks later without I/O, so an event goes to it as it comes (those that come while one is in flight go
   * together on its acknowledgement) instead of waiting for the end of the turn, an rxjs action per delta when
   * deltas come one per read; else the writer's default (a Redis log gains a call's events for the turn's wait).
   */
  readonly logBatchDelayMs: number | undefined;
  readonly background: boolean;
  readonly authorize: GatewayOptions['authorize'];
  readonly maxBodyBytes: number;
  readonly maxConcurrentStreams: number;
  readonly maxPendingBytes: number;
  readonly upstreamTimeoutMs: number;
  readonly idleTimeoutMs: number | undefined;
  readonly bodyTimeoutMs: number;
  readonly heartbeatMs: number;
  readonly notFoundTimeoutMs: number;
  readonly leaseMs: number;
  readonly passThrough: readonly PassThroughPattern[];
  readonly accessLog: AccessLogOption;
}

function logOf(log: GatewayOptions['log']): { log: EventLog; owned: boolean; batchDelayMs?: number } {
  if (log === undefined || log === 'memory') return { log: memoryEventLog(), owned: true, batchDelayMs: 0 };
  if (typeof log !== 'string') return { log, owned: false };
  if (/^rediss?:\/\//.test(log)) return { log: redisEventLog({ url: log }), owned: true };
  throw new InvalidOptionError('log', 'expected an EventLog, a redis:// or rediss:// URL, or "memory"');
}

/**
 * The operator's `fetch`, else the gateway's own HTTP/1.1 client (upstream-http.ts), unless the application routes `fetch` through
 * a dispatcher of its own (an HTTP proxy set with undici's `setGlobalDispatcher`): then the global `fetch`, which
 * goes through it.
 */
function upstreamOf(f: typeof fetch | undefined): Pick<ResolvedGatewayOptions, 'upstream' | 'closeUpstream'> {
  const dispatcher = (globalThis as Record<symbol, unknown>)[Symbol.for('undici.globalDispatcher.1')];
  const custom = typeof dispatcher === 'object' && dispatcher !== null && dispatcher.constructor?.name !== 'Agent';
  if (f === undefined && !custom) {
    const node = nodeUpstream();
    return { upstream: node.request, closeUpstream: node.close };
  }
  return { upstream: fetchUpstreamOf(f ?? globalThis.fetch.bind(globalThis)), closeUpstream: () => undefined };
}

export function resolveOptions(options: GatewayOptions): ResolvedGatewayOptions {
  const upstream: GatewayUpstream = options.upstream ?? {};
  // A URL string (the shape this option once had) would otherwise be read as `{}`: the default upstream, silently.
  if (typeof upstream !== 'object' || upstream === null) throw invalidOption('upstream', '{ baseURL, apiKey?, fetch? }', upstream);
  const baseURL = nested('upstream', () => checkBaseURL((upstream.baseURL ?? env('OPENAI_BASE_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '')));
  const f = optionalFunction('upstream.fetch', upstream.fetch);
  const t = options.timeouts ?? {};
  const l = options.limits ?? {};
  const accessLog = checkAccessLog(options.accessLog);
  if (accessLog === undefined) throw new InvalidOptionError('accessLog', "expected false, 'stdout' or a function");
  const passThrough = parsePassThrough(options.passThrough);
  optionalFunction('authorize', options.authorize);
  oneOf('background', options.background, [true, false]);
  const limits = {
    maxBodyBytes: nonNegativeInt('limits.maxBodyBytes', l.maxBodyBytes, 16 * 1024 * 1024),
    maxConcurrentStreams: nonNegativeInt('limits.maxConcurrentStreams', l.maxConcurrentStreams, 10_000),
    maxPendingBytes: nonNegativeInt('limits.maxPendingBytes', l.maxPendingBytes, 1024 * 1024),
  };
  const timeouts = {
    upstreamTimeoutMs: durationMs('timeouts.upstreamMs', t.upstreamMs, 600_000),
    idleTimeoutMs: durationMs('timeouts.idleMs', t.idleMs),
    bodyTimeoutMs: durationMs('timeouts.bodyMs', t.bodyMs, 30_000),
    heartbeatMs: durationMs('timeouts.heartbeatMs', t.heartbeatMs, 15_000),
    notFoundTimeoutMs: durationMs('timeouts.notFoundMs', t.notFoundMs, DEFAULT_NOT_FOUND_TIMEOUT_MS),
  };
  const leaseMs = positiveDurationMs('leaseMs', options.leaseMs, DEFAULT_LEASE_MS);
  // Opened last: every other option is checked before a Redis connection is made.
  const { log, owned, batchDelayMs } = logOf(options.log);
  return {
    baseURL,
    upstreamKey: upstream.apiKey ?? (options.authorize ? env('OPENAI_API_KEY') : undefined),
    ...upstreamOf(f),
    log,
    ownsLog: owned,
    logBatchDelayMs: batchDelayMs,
    background: options.background === true,
    authorize: options.authorize,
    ...limits,
    ...timeouts,
    leaseMs,
    passThrough,
    accessLog,
  };
}
