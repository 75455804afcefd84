import type { Cluster, Redis } from 'ioredis';

export interface RedisEventLogOptions {
  /** Where to connect when no `client` is given, e.g. `redis://:password@host:6379/0`. Default `redis://127.0.0.1:6379`. */
  readonly url?: string;
  /**
   * A client the application already has (an ioredis `Redis` or `Cluster`). The log uses it as it is, opens
   * only duplicates of it for blocking reads, and `close()` leaves it open.
   */
  readonly client?: Redis | Cluster;
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
}

/** The options with their defaults filled in, as the parts of the log use them. */
export interface RedisLogSettings {
  readonly keyPrefix: string;
  readonly ttlMs: number;
  readonly liveTtlMs: number;
  readonly maxEvents: number;
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

const DAY = 24 * 60 * 60 * 1000;
const DEFAULT_PREFIX = 'openai-rx:log:';

/** The settings of `options`; throws a `TypeError` for a `keyPrefix` with braces. */
export function redisLogSettings(options: RedisEventLogOptions): RedisLogSettings {
  const keyPrefix = options.keyPrefix ?? DEFAULT_PREFIX;
  if (/[{}]/.test(keyPrefix)) throw new TypeError('redisEventLog: keyPrefix must not contain { or } (the keys carry their own hash tag)');
  return {
    keyPrefix,
    ttlMs: Math.max(1, Math.round(options.ttlMs ?? DAY)),
    liveTtlMs: Math.max(1, Math.round(options.liveTtlMs ?? DAY)),
    maxEvents: options.maxEvents ?? 100_000,
    maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
    timeoutMs: options.commandTimeoutMs ?? 5000,
  };
}
