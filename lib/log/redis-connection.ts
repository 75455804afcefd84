import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { EventLogError, MissingPeerDependencyError } from '../errors.js';
import { loadPeer } from '../peer.js';
import { type NodeLive, nodeLive } from './redis-cluster-live.js';
import { type ClusterTails, clusterTails } from './redis-cluster-tail.js';
import { isRefusal, refusal } from './redis-refused.js';
import type { RedisClient } from './redis-options.js';
import { type RedisTail, redisTail } from './redis-tail.js';
import type { LogScope } from './types.js';

// The connections of one `redisEventLog`: the main client (its own, or the application's), the blocking
// connections live reading needs (one shared blocking XREAD tail on a single Redis; on a Cluster one subscriber
// connection per master read from: lib/log/redis-cluster-tail.ts), command timeouts, and closing all of it.
/**
 * How long the tail's wake stream outlives its last wake (a process that dies leaves it behind; `close()`
 * deletes it). It is needed only until the XREAD in flight has read it: one that finds it gone re-reads anyway.
 */
const WAKE_TTL_MS = 10_000;
// What every connection of the log's own (and every duplicate) leaves out: the ready check's INFO and the client
// info's CLIENT SETINFO, which a least-privilege ACL user lacks (ioredis would warn, or Redis log the refusal).
const QUIET: Partial<RedisOptions> = { enableReadyCheck: false, disableClientInfo: true };
/** ioredis's `Redis` class, loaded (an optional peer dependency) when the log first needs a connection of its own. */
async function loadIORedis(): Promise<typeof Redis> {
  const mod = (await loadPeer('ioredis', 'redisEventLog')) as { Redis?: typeof Redis; default?: typeof Redis | { Redis?: typeof Redis } };
  const d = mod.default;
  return (mod.Redis ?? (typeof d === 'function' ? d : d?.Redis)) as typeof Redis;
}

/**
 * A failure as the log's error: a refusal (ACL) as `'forbidden'` naming the command, a missing ioredis as
 * `'missing_dependency'` (not retryable: installing it helps, trying again does not), anything else `'unavailable'`.
 */
export const unavailable = (e: unknown, scope?: LogScope): EventLogError =>
  e instanceof EventLogError
    ? e
    : e instanceof MissingPeerDependencyError
    ? new EventLogError('missing_dependency', e.message, scope?.responseId, { cause: e })
    : (refusal(e, scope) ?? new EventLogError('unavailable', `Redis: ${e instanceof Error ? e.message : String(e)}`, scope?.responseId));

/**
 * The same failure said of `responseId`: its reason and bare message (the `reason: ` and ` (response …)` its
 * constructor added taken off again), for an error a shared reader or batch raised for another response or none.
 */
export function eventLogErrorOf(e: EventLogError, responseId: string | undefined): EventLogError {
  const prefix = `${e.reason}: `;
  const suffix = e.responseId === undefined ? '' : ` (response ${e.responseId})`;
  const { message } = e;
  const bare = message.startsWith(prefix) && message.endsWith(suffix) ? message.slice(prefix.length, message.length - suffix.length) : message;
  return new EventLogError(e.reason, bare, responseId, e.cause === undefined ? undefined : { cause: e.cause });
}

/** An error a shared reader or batch reported without a response, as this response's own. */
export const asOwnError = (e: unknown, scope: LogScope): EventLogError =>
  e instanceof EventLogError && e.responseId === undefined ? eventLogErrorOf(e, scope.responseId) : unavailable(e, scope);

export const isCluster = (c: Redis | Cluster): c is Cluster => 'isCluster' in c && c.isCluster;

export interface RedisConnectionOptions {
  readonly url?: string;
  /** An ioredis `Redis` or `Cluster` (typed by a few members in the public options: `RedisClient`). */
  readonly client?: RedisClient;
  readonly timeoutMs: number;
  /** The log's key prefix: the tail's wake stream lives under it too (an ACL's `~<keyPrefix>*` covers it). */
  readonly keyPrefix: string;
  /** A single Redis read through the live channels (one subscriber connection), as a Cluster is, rather than XREAD. */
  readonly subscribe?: boolean;
}

export interface RedisConnections {
  readonly timeoutMs: number;
  /** Whether `close()` was called. */
  isClosed(): boolean;
  /** Aborted by `close()`: a reader waiting to try again stops its timer at once. */
  readonly closing: AbortSignal;
  /** Throws `EventLogError('unavailable')` once the log is closed. */
  ensureOpen(scope: LogScope): void;
  /** The main client, created (and ioredis loaded) on first use when the log owns it. */
  client(): Promise<Redis | Cluster>;
  /** `p`, or `EventLogError('unavailable')` after `ms`; a late rejection of `p` is swallowed. */
  timed<T>(p: Promise<T>, scope: LogScope | undefined, ms?: number): Promise<T>;
  /**
   * The tail reader serving the stream `events`: on a single Redis the one every `wait` and `follow` of this
   * log shares, on a Cluster the one of the master serving its slot (`refresh`, after a failure: the slot map is asked again).
   */
  tail(events: string, refresh: boolean): Promise<RedisTail>;
  /** Whether writes to `c` publish their entries on the streams' live channels (a Cluster; `subscribe`). */
  publishes(c: Redis | Cluster): boolean;
  close(): Promise<void>;
}

export function redisConnections(options: RedisConnectionOptions): RedisConnections {
  const { timeoutMs } = options;
  // What `RedisClient` describes is an ioredis client: used as one (ioredis's types inside the package only).
  const given = options.client as Redis | Cluster | undefined;
  const owned = given === undefined;
  const busy = new Set<Redis>(); // blocking connections being connected
  let tail: RedisTail | undefined;
  let tails: ClusterTails | undefined;
  /** With `subscribe`, on a single Redis: its live reader (replaced by a new one once it failed). */
  let live: NodeLive | undefined;
  /** The client the tail's wakes go through, once one was sent (`close()` deletes the wake stream through it). */
  let woke: Redis | undefined;
  let main: Promise<Redis | Cluster> | undefined;
  let closed = false;
  const closer = new AbortController();
  // Not a stream key (those have `{` after the prefix); random, so that no other log instance wakes this one's tail.
  const wakeKey = `${options.keyPrefix}tail:${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;

  const ownOptions: RedisOptions = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 1,
    // Keeps reconnecting in the background (a restarted Redis is used again); commands wait at most their timeout.
    retryStrategy: (times: number) => Math.min(100 * times, 1000),
    ...QUIET,
  };

  const client = (): Promise<Redis | Cluster> => {
    if (given) return Promise.resolve(given);
    main ??= loadIORedis().then((RedisClass) => {
      const c = new RedisClass(options.url ?? 'redis://127.0.0.1:6379', ownOptions);
      c.on('error', () => undefined); // reported through the failing commands; not an unhandled 'error' event
      return c;
    });
    return main;
  };

  const timed = <T>(p: Promise<T>, scope: LogScope | undefined, ms = timeoutMs): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new EventLogError('unavailable', `Redis did not answer within ${ms} ms`, scope?.responseId)), ms);
      p.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e) => {
          clearTimeout(timer);
          reject(unavailable(e, scope));
        },
      );
    });

  /** The live readers' connections (XREAD BLOCK; a Cluster's subscribers) fail fast instead of reconnecting or queueing: the reader decides what to do next. */
  const blockingOptions: Partial<RedisOptions> = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: undefined,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: () => null,
    ...QUIET,
  };

  /** Connects `c` (a new blocking connection), disconnected again when that fails or the log closed meanwhile. */
  const connected = async (c: Redis): Promise<Redis> => {
    c.on('error', () => undefined);
    busy.add(c);
    try {
      await timed(c.connect(), undefined);
      if (closed) throw new Error('the log is closed');
    } catch (e) {
      c.disconnect();
      throw e;
    } finally {
      busy.delete(c);
    }
    return c;
  };

  /** A subscriber connection to one node of `cluster` (`host:port`), with the Cluster's redisOptions (user, password, TLS). */
  const openNode = async (cluster: Cluster, node: string): Promise<Redis> => {
    const RedisClass = await loadIORedis();
    const at = node.lastIndexOf(':');
    return connected(new RedisClass({ ...cluster.options.redisOptions, host: node.slice(0, at), port: Number(node.slice(at + 1)), ...blockingOptions }));
  };

  const tailOf = (base: Redis): RedisTail =>
    (tail ??= redisTail({
      connect: () => connected(base.duplicate(blockingOptions)),
      wakeKey,
      // One round trip: both are written before either answers. MAXLEN 1: only the last wake is kept.
      wake: () => {
        woke = base;
        return timed(Promise.all([base.xadd(wakeKey, 'MAXLEN', '1', '*', 'w', '1'), base.pexpire(wakeKey, WAKE_TTL_MS)]), undefined);
      },
      isRefusal,
      timed: (p, ms) => timed(p, undefined, ms),
      failure: (e) => unavailable(e),
      timeoutMs,
    }));

  /** The single Redis's live reader with `subscribe`: the Cluster's per-node one, its node being `base`. */
  const liveOf = (base: Redis): NodeLive => {
    if (live !== undefined && !live.retired()) return live;
    const made: NodeLive = nodeLive({
      connect: () => connected(base.duplicate(blockingOptions)),
      read: (events, id, count) => base.xrange(events, `(${id}`, '+', 'COUNT', count),
      peek: async (events, end, id) => {
        const got = await base.xread('COUNT', 1, 'STREAMS', events, end, id, '0-0');
        return got !== null && got.length > 0;
      },
      timed: (p) => timed(p, undefined),
      failure: (e) => unavailable(e),
      onRetire: () => {
        if (live === made) live = undefined;
      },
    });
    return (live = made);
  };

  return {
    timeoutMs,
    isClosed: () => closed,
    closing: closer.signal,
    ensureOpen(scope) {
      if (closed) throw new EventLogError('unavailable', 'the log is closed', scope.responseId);
    },
    client,
    timed,

    async tail(events, refresh) {
      const c = await client();
      if (!isCluster(c)) {
        if (!options.subscribe) return tailOf(c);
        if (closed) throw new EventLogError('unavailable', 'the log is closed');
        return liveOf(c);
      }
      if (closed) throw new EventLogError('unavailable', 'the log is closed');
      tails ??= clusterTails(c, {
        connect: (node) => openNode(c, node),
        timed: (p) => timed(p, undefined),
        failure: (e) => unavailable(e),
      });
      return tails.tail(events, refresh);
    },

    publishes: (c) => isCluster(c) || options.subscribe === true,

    async close() {
      if (closed) return;
      closed = true;
      closer.abort();
      tail?.close();
      tails?.close();
      live?.close();
      // The wake stream goes now, not after its TTL (PEXPIRE 0 deletes: no DEL for the ACL user to be granted);
      // sent before the QUIT below, on the same connection, so not awaited.
      woke?.pexpire(wakeKey, 0).catch(() => undefined);
      for (const c of busy) c.disconnect();
      busy.clear();
      if (owned && main !== undefined) {
        const c = await main.catch(() => undefined);
        if (c) {
          await timed(c.quit(), undefined).catch(() => undefined);
          c.disconnect();
        }
      }
    },
  };
}
