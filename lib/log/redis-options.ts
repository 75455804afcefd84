import { InvalidOptionError } from '../errors.js';
import { durationMs, nonNegativeInt, nonNegativeNumber, oneOf, optionalFunction, positiveDurationMs } from '../options.js';
import { DEFAULT_MAX_EVENTS, DEFAULT_MAX_STREAM_BYTES, DEFAULT_TTL_MS } from './defaults.js';

/**
 * An ioredis client, `Redis` or `Cluster`, as the log's options name it: by a few of its members rather than by
 * ioredis's own types, so that the package's declarations need no ioredis (an optional peer dependency) in a
 * project that never uses the Redis log.
 */
export interface RedisClient {
  /** `'ready'`, `'connecting'`, `'end'`, … */
  readonly status: string;
  readonly options: object;
  duplicate(): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

export interface RedisEventLogOptions {
  /** Where to connect when no `client` is given, e.g. `redis://:password@host:6379/0`. Default `redis://127.0.0.1:6379`. */
  readonly url?: string;
  /**
   * A client the application already has (an ioredis `Redis` or `Cluster`). The log uses it as it is, opens
   * only duplicates of it for blocking reads, and `close()` leaves it open.
   */
  readonly client?: RedisClient;
  /** Put before every key (no braces: the keys' hash tag is the log's own). Default `'openai-rx:log:'`. */
  readonly keyPrefix?: string;
  /** How long an ended stream (terminal event or cancel) is kept, in ms. Default 24 h. */
  readonly ttlMs?: number;
  /**
   * The expiry of a live stream's keys, pushed back by every acquire and renew, and by an append once it came
   * within 1% of it (at most 1 s; an append does not pay for three PEXPIREs each time). Default 24 h.
   */
  readonly liveTtlMs?: number;
  /** Most events one stream may hold; an append past it fails with `EventLogError('limit')`. Default 100 000. */
  readonly maxEvents?: number;
  /** Most bytes (UTF-8 JSON of the events) one stream may hold; past it: `EventLogError('limit')`. Default 64 MiB. */
  readonly maxBytes?: number;
  /**
   * How long one command (and connecting) may take before it fails with `EventLogError('unavailable')`, in ms.
   * Default 5000.
   */
  readonly commandTimeoutMs?: number;
  /**
   * How long a call keeps trying again through a transient failure (a Cluster failover's MOVED, ASK, TRYAGAIN,
   * CLUSTERDOWN, a restarted Redis's LOADING, a closed connection, a timeout) before it fails with
   * `EventLogError('unavailable')`, in ms. A replica's promotion takes a few seconds. Default 20 000.
   */
  readonly retryBudgetMs?: number;
  /**
   * How many replicas must confirm an append (`WAIT`) before it counts as stored: with 1 or more, what an append
   * acknowledged survives its master's death. Default 0 (acknowledged once the master has it; see
   * docs/durable-log.md for what a failover can lose then).
   */
  readonly replicas?: number;
  /** How long one `WAIT` for `replicas` may take before the append is tried again, in ms. Default 1000. */
  readonly replicaTimeoutMs?: number;
  /** Where the log's warnings go (an eviction policy that can drop its keys). Default `console.warn`. */
  readonly warn?: (message: string) => void;
  /**
   * How `follow` and `wait` read new entries on a single Redis. `'xread'` (the default): one blocking `XREAD`
   * naming every stream being read. `'subscribe'`: appends also publish what they stored on the stream's live
   * channel (`SPUBLISH`) and readers take it from ONE subscriber connection per log instance (`SSUBSCRIBE`),
   * as on a Cluster, which always reads so: cheaper with many streams, but every log instance writing or
   * reading the same streams must use it, and the ACL user needs `+spublish +ssubscribe +sunsubscribe +ping`
   * and the channels `&<keyPrefix>*` (docs/durable-log.md).
   */
  readonly liveReads?: 'xread' | 'subscribe';
}

/** The options with their defaults filled in, as the parts of the log use them. */
export interface RedisLogSettings {
  readonly keyPrefix: string;
  readonly ttlMs: number;
  readonly liveTtlMs: number;
  readonly maxEvents: number;
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly retryBudgetMs: number;
  readonly replicas: number;
  readonly replicaTimeoutMs: number;
  readonly warn: (message: string) => void;
  /** Single Redis: live reads through the live channels (SPUBLISH/SSUBSCRIBE) rather than XREAD. */
  readonly subscribe: boolean;
}

const DEFAULT_PREFIX = 'openai-rx:log:';

/** The settings of `options`; an `InvalidOptionError` for one that cannot work (a `keyPrefix` with braces, a negative limit…). */
export function redisLogSettings(options: RedisEventLogOptions): RedisLogSettings {
  const keyPrefix = options.keyPrefix ?? DEFAULT_PREFIX;
  if (typeof keyPrefix !== 'string') throw new InvalidOptionError('keyPrefix', `expected a string, got ${typeof keyPrefix}`);
  if (/[{}]/.test(keyPrefix)) throw new InvalidOptionError('keyPrefix', 'must not contain { or } (the keys carry their own hash tag)');
  return {
    keyPrefix,
    // Redis takes whole milliseconds, at least 1.
    ttlMs: Math.max(1, Math.round(positiveDurationMs('ttlMs', options.ttlMs, DEFAULT_TTL_MS))),
    liveTtlMs: Math.max(1, Math.round(positiveDurationMs('liveTtlMs', options.liveTtlMs, DEFAULT_TTL_MS))),
    maxEvents: nonNegativeInt('maxEvents', options.maxEvents, DEFAULT_MAX_EVENTS),
    maxBytes: nonNegativeNumber('maxBytes', options.maxBytes, DEFAULT_MAX_STREAM_BYTES),
    timeoutMs: positiveDurationMs('commandTimeoutMs', options.commandTimeoutMs, 5000),
    retryBudgetMs: durationMs('retryBudgetMs', options.retryBudgetMs, 20_000),
    replicas: nonNegativeInt('replicas', options.replicas, 0),
    replicaTimeoutMs: Math.max(1, Math.round(positiveDurationMs('replicaTimeoutMs', options.replicaTimeoutMs, 1000))),
    warn: optionalFunction('warn', options.warn) ?? ((message: string) => console.warn(message)),
    subscribe: oneOf('liveReads', options.liveReads, ['xread', 'subscribe'] as const, 'xread') === 'subscribe',
  };
}
