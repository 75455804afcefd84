import { EventLogError, InvalidOptionError } from '../errors.js';
import type { EventLog, Lease, LogScope } from '../log/types.js';
import { Scopes } from './log-store-cache.js';
import { durationMs, optionalFunction, positiveDurationMs, positiveInt } from '../options.js';

export interface EventLogStreamStoreOptions {
  /**
   * The log `owner` every stream of this store is kept under (its directory, data and access streams): stores with
   * different namespaces on one log never see each other's streams. Default `'durable-streams'`.
   */
  readonly namespace?: string;
  /**
   * How long a writer holds a stream's lease for one batch of appends (a create, a delete), in ms: a process that dies
   * holding it blocks the stream's writes that long. Default 4000.
   */
  readonly leaseMs?: number;
  /**
   * How long a write waits for a lease another process holds (tried again with backoff) before it rejects with
   * `EventLogError('lease_held')` (the handler answers 503), in ms: longer than `leaseMs`, so that a dead holder's
   * lease lapses while its waiters still wait. Default 6000.
   */
  readonly leaseWaitMs?: number;
  /**
   * The granularity of a sliding TTL's last access, in ms: a read or write records it in the log when the last
   * record is older than this (or than a tenth of the stream's TTL, whichever is shorter). Default 1000.
   */
  readonly touchIntervalMs?: number;
  /**
   * How often (at most) a read or write of a stream also pushes back the log's expiry of its directory and data streams
   * (which the log drops `liveTtlMs` after their last write), in ms. Must be well below the log's `liveTtlMs`. Default
   * 1 h (the logs' default `liveTtlMs` is 24 h).
   */
  readonly keepAliveMs?: number;
  /**
   * How many streams' directory views and writer states one store instance caches (least recently used ones are
   * forgotten, then read from the log again when used). Default 10 000.
   */
  readonly cacheSize?: number;
  /** The clock expiry is measured with, in epoch ms. Default `Date.now`. */
  readonly now?: () => number;
}

export interface LogStoreSettings {
  readonly owner: string;
  readonly leaseMs: number;
  readonly leaseWaitMs: number;
  readonly touchIntervalMs: number;
  readonly cacheSize: number;
  readonly keepAliveMs: number;
  readonly now: () => number;
  /** The scope objects of this store's log streams. */
  readonly scopes: Scopes;
}

export function logStoreSettings(log: EventLog, options: EventLogStreamStoreOptions): LogStoreSettings {
  if (log === null || typeof log !== 'object' || typeof log.acquire !== 'function' || typeof log.state !== 'function') {
    throw new InvalidOptionError('log', 'expected an EventLog (memoryEventLog, redisEventLog)');
  }
  if (options === null || typeof options !== 'object') throw new InvalidOptionError('options', 'expected an object');
  const owner = options.namespace ?? 'durable-streams';
  if (typeof owner !== 'string' || owner === '') throw new InvalidOptionError('namespace', 'expected a non-empty string');
  const cacheSize = positiveInt('cacheSize', options.cacheSize, 10_000);
  return {
    owner,
    leaseMs: positiveDurationMs('leaseMs', options.leaseMs, 4000),
    leaseWaitMs: durationMs('leaseWaitMs', options.leaseWaitMs, 6000),
    touchIntervalMs: positiveDurationMs('touchIntervalMs', options.touchIntervalMs, 1000),
    keepAliveMs: positiveDurationMs('keepAliveMs', options.keepAliveMs, 3_600_000),
    cacheSize,
    now: optionalFunction('now', options.now) ?? Date.now,
    // Three log streams per stream (directory, data, access).
    scopes: new Scopes(owner, 3 * cacheSize),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` under the lease of `scope`: acquired (tried again with backoff while another process holds it, up to
 * `leaseWaitMs`), released after, whatever happened. The log fences an append made after the lease lapsed.
 */
export async function withLease<T>(log: EventLog, scope: LogScope, s: LogStoreSettings, work: (lease: Lease) => Promise<T>): Promise<T> {
  const deadline = Date.now() + s.leaseWaitMs;
  let delay = 2;
  let lease: Lease;
  for (;;) {
    try {
      lease = await log.acquire(scope, s.leaseMs);
      break;
    } catch (e) {
      if (!(e instanceof EventLogError) || e.reason !== 'lease_held' || Date.now() + delay > deadline) throw e;
      await sleep(delay * (0.5 + Math.random()));
      delay = Math.min(delay * 2, 100);
    }
  }
  try {
    return await work(lease);
  } finally {
    await log.release(scope, lease.token).catch(() => undefined);
  }
}
