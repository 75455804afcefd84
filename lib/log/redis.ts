import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { EventLogError } from '../errors.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import { appendBatcher } from './redis-append-batch.js';
import { ACQUIRE, APPEND, APPEND_MANY, CANCEL, RELEASE, RENEW, STATE } from './redis-scripts.js';
import { type RedisTail, redisTail, type StreamEntry } from './redis-tail.js';
import { isTerminalEvent } from './scope.js';
import type { FollowableEventLog, FollowHandlers } from './follow.js';
import type { EventLog, Lease, LogEnd, LogScope, LogState } from './types.js';

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
  /** The expiry of a live stream's keys, pushed back by every acquire, renew and append. Default 24 h. */
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

const DAY = 24 * 60 * 60 * 1000;
const DEFAULT_PREFIX = 'openai-rx:log:';
/** Idle blocking connections kept for the next `wait` (on a Cluster; a single Redis shares one tail reader). */
const POOL = 4;
// A specifier bundlers do not follow: ioredis is loaded (in Node) on first use only, so that the main entry,
// which exports this function, stays loadable in a browser.
const IOREDIS = 'ioredis';
type IORedisModule = typeof import('ioredis');

async function loadIORedis(): Promise<IORedisModule['Redis']> {
  const mod = (await import(/* webpackIgnore: true */ /* @vite-ignore */ IOREDIS)) as IORedisModule & { default?: { Redis?: unknown } };
  return (mod.Redis ?? mod.default?.Redis ?? mod.default) as IORedisModule['Redis'];
}

/** Escapes what would change a key's meaning: `{` `}` (the hash tag), `:` (the separator) and `%` itself. */
const escapeKey = (s: string): string => s.replace(/[%{}:]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The keys of one response's stream: they share the hash tag `{owner:responseId}`, so one Cluster slot. */
export function redisStreamKeys(keyPrefix: string, scope: LogScope): { meta: string; events: string; end: string } {
  const base = `${keyPrefix}{${escapeKey(scope.owner ?? '')}:${escapeKey(scope.responseId)}}`;
  return { meta: `${base}:meta`, events: `${base}:events`, end: `${base}:end` };
}

const unavailable = (e: unknown, scope?: LogScope): EventLogError =>
  e instanceof EventLogError ? e : new EventLogError('unavailable', `Redis: ${e instanceof Error ? e.message : String(e)}`, scope?.responseId);

/** The sequence number an event is stored under; events without a non-negative integer one cannot be placed. */
const placeable = (e: ResponseStreamEvent): boolean => Number.isSafeInteger(e.sequence_number) && (e.sequence_number as number) >= 0;

/**
 * The event log in Redis (7 or later; Redis Cluster too): one Redis stream per response (`XADD`, `XRANGE`,
 * `XREAD BLOCK`), so producers and readers in any number of processes share it. Implements {@link EventLog}:
 * every write is one Lua script that checks the lease's fencing token, skips replayed sequence numbers,
 * enforces `maxEvents` / `maxBytes` and sets the keys' expiries, all atomically. Every key expires: a live
 * stream after `liveTtlMs` without a write, an ended one `ttlMs` after its end. The keys of a response derive
 * from its id and `owner` and share a `{hash tag}` (one Cluster slot), so another owner's stream is not
 * found. When Redis cannot be reached, every call fails with `EventLogError('unavailable')` within about
 * `commandTimeoutMs` (the client reconnects in the background). Events without a non-negative integer
 * `sequence_number` cannot be placed and are not stored.
 *
 * ioredis is loaded on first use, so importing `openai-rx` in a browser does not pull it in.
 *
 * ```ts
 * const log = redisEventLog({ url: process.env.REDIS_URL, keyPrefix: 'myapp:' });
 * streamResponse({ model, input, background: true }, config).pipe(persistTo(log)).subscribe();
 * // in another process, later, or after a reconnect:
 * fromEventLog(log, responseId, { startingAfter: 41 }).subscribe(render);
 * await log.close();
 * ```
 */
export function redisEventLog(options: RedisEventLogOptions = {}): EventLog & FollowableEventLog {
  const keyPrefix = options.keyPrefix ?? DEFAULT_PREFIX;
  if (/[{}]/.test(keyPrefix)) throw new TypeError('redisEventLog: keyPrefix must not contain { or } (the keys carry their own hash tag)');
  const ttlMs = Math.max(1, Math.round(options.ttlMs ?? DAY));
  const liveTtlMs = Math.max(1, Math.round(options.liveTtlMs ?? DAY));
  const maxEvents = options.maxEvents ?? 100_000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const timeoutMs = options.commandTimeoutMs ?? 5000;
  const owned = options.client === undefined;
  const blocking: Redis[] = []; // idle blocking connections
  const busy = new Set<Redis>();
  /** Each script's SHA once Redis returned it, and the one SCRIPT LOAD per script under way or done. */
  const shas = new Map<string, string>();
  const loading = new Map<string, Promise<void>>();
  let tail: RedisTail | undefined;
  let main: Promise<Redis | Cluster> | undefined;
  let closed = false;

  const ownOptions: RedisOptions = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 1,
    // Keeps reconnecting in the background (a restarted Redis is used again); commands wait at most their timeout.
    retryStrategy: (times: number) => Math.min(100 * times, 1000),
  };

  const client = (): Promise<Redis | Cluster> => {
    if (options.client) return Promise.resolve(options.client);
    main ??= loadIORedis().then((RedisClass) => {
      const c = new RedisClass(options.url ?? 'redis://127.0.0.1:6379', ownOptions);
      c.on('error', () => undefined); // reported through the failing commands; not an unhandled 'error' event
      return c;
    });
    return main;
  };

  /** `p`, or `EventLogError('unavailable')` after `ms`; a late rejection of `p` is swallowed. */
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

  const ensureOpen = (scope: LogScope): void => {
    if (closed) throw new EventLogError('unavailable', 'the log is closed', scope.responseId);
  };

  const streamKeys = (scope: LogScope): string[] => {
    const k = redisStreamKeys(keyPrefix, scope);
    return [k.meta, k.events, k.end];
  };

  /** Runs a script by its SHA, loading it (EVAL) when Redis does not know it (first use, restart, another node). */
  const run = async (script: string, scope: LogScope, args: (string | number)[], keys = streamKeys(scope)): Promise<string[]> => {
    ensureOpen(scope);
    const c = await timed(client(), scope);
    const call = async (): Promise<unknown> => {
      let sha = shas.get(script);
      if (sha === undefined) {
        const pending = loading.get(script);
        if (pending === undefined) {
          // The first call loads it, once, sent with its EVAL (no extra round trip before it).
          const load = (c.script('LOAD', script) as Promise<unknown>).then((v) => {
            shas.set(script, String(v));
          });
          loading.set(script, load);
          load.catch(() => loading.delete(script));
          return c.eval(script, keys.length, ...keys, ...args);
        }
        // The calls until its SHA is known wait for it (a burst of first calls would each send the whole script).
        await pending.catch(() => undefined);
        sha = shas.get(script);
        if (sha === undefined) return c.eval(script, keys.length, ...keys, ...args);
      }
      try {
        return await c.evalsha(sha, keys.length, ...keys, ...args);
      } catch (e) {
        if (!(e instanceof Error && e.message.startsWith('NOSCRIPT'))) throw e;
      }
      // Not known to this node (restarted, flushed, another Cluster node): EVAL caches it there again.
      return c.eval(script, keys.length, ...keys, ...args);
    };
    return (await timed(call(), scope, 2 * timeoutMs)) as string[];
  };

  const fenced = (scope: LogScope, token: number): EventLogError =>
    new EventLogError('fenced', `token ${token} does not hold the lease`, scope.responseId);

  const lease = (r: string[]): Lease => ({ token: Number(r[1]), expiresAt: Number(r[2]) });

  const isCluster = (c: Redis | Cluster): c is Cluster => 'isCluster' in c && c.isCluster;

  /** A new, connected duplicate for XREAD BLOCK that fails fast instead of reconnecting or queueing. */
  const openBlocking = async (scope: LogScope | undefined): Promise<Redis> => {
    const base = await timed(client(), scope);
    const override: Partial<RedisOptions> = {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: undefined,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: () => null,
    };
    const c = (isCluster(base) ? base.duplicate(undefined, { redisOptions: override }) : base.duplicate(override)) as Redis;
    c.on('error', () => undefined);
    busy.add(c);
    try {
      await timed(c.connect(), scope);
    } catch (e) {
      busy.delete(c);
      c.disconnect();
      throw e;
    }
    busy.delete(c);
    return c;
  };

  /** A connection for XREAD BLOCK on a Cluster: an idle one, or a new one. */
  const takeBlocking = async (scope: LogScope): Promise<Redis> => {
    for (let c = blocking.pop(); c !== undefined; c = blocking.pop()) {
      if (c.status === 'ready') return c;
      c.disconnect();
    }
    return openBlocking(scope);
  };

  /** The one blocking reader every `wait` of this instance shares (a single Redis, not a Cluster). */
  const tailOf = (base: Redis): RedisTail =>
    (tail ??= redisTail({
      connect: () => openBlocking(undefined),
      unblock: (id) => timed(base.client('UNBLOCK', id) as Promise<number>, undefined),
      timed: (p, ms) => timed(p, undefined, ms),
      failure: (e) => unavailable(e),
      timeoutMs,
    }));

  /** What an APPEND returned, as the contract's errors. */
  const appendResult = (scope: LogScope, token: number, r: readonly string[]): void => {
    if (r[0] === 'fenced') throw fenced(scope, token);
    if (r[0] === 'limit') {
      const what = r[1] === 'events' ? `${r[2]} events (maxEvents ${maxEvents})` : `${r[2]} bytes (maxBytes ${maxBytes})`;
      throw new EventLogError('limit', `the stream would hold ${what}`, scope.responseId);
    }
  };

  // The appends of all streams asked for in one turn of the event loop go to Redis as one script call (on a
  // single Redis): with many streams, each carrying a few events, the calls and round trips do not grow with
  // the number of streams.
  const appends = appendBatcher((batch) => {
    const first = batch[0]!;
    if (batch.length === 1) return run(APPEND, first.scope, [first.token, liveTtlMs, ttlMs, maxEvents, maxBytes, ...first.args]);
    const keys: string[] = [];
    const args: (string | number)[] = [liveTtlMs, ttlMs, maxEvents, maxBytes];
    for (const a of batch) {
      keys.push(...streamKeys(a.scope));
      args.push(a.token, a.args.length / 3);
      for (const x of a.args) args.push(x);
    }
    return run(APPEND_MANY, first.scope, args, keys);
  });

  const xreadIds = (after: number | undefined): string => (after === undefined || after < 0 ? '0-0' : `${Math.floor(after)}-1`);

/** The events of stream entries; the entry a cancel adds (no `e` field) is skipped. */
  const parseEntries = (entries: StreamEntry[]): ResponseStreamEvent[] => {
    const out: ResponseStreamEvent[] = [];
    for (const [, fields] of entries) {
      const at = fields.indexOf('e');
      if (at >= 0 && at % 2 === 0) out.push(JSON.parse(fields[at + 1] as string) as ResponseStreamEvent);
    }
    return out;
  };
  /** Whether entries hold the one a cancel adds to the events stream. */
  const hasEnd = (entries: StreamEntry[]): boolean => entries.some(([, fields]) => fields[0] === 'end');

  /** `follow` on a Cluster: a blocking connection of its own (from the pool) reading the stream's entries straight. */
  const followOnCluster = (scope: LogScope, after: number | undefined, h: FollowHandlers, isStopped: () => boolean, onConn: (c: Redis | undefined) => void): void => {
    const { events, end } = redisStreamKeys(keyPrefix, scope);
    let id = xreadIds(after);
    let ended = false;
    void (async () => {
      while (!closed && !isStopped()) {
        const conn = await takeBlocking(scope);
        if (closed || isStopped()) {
          conn.disconnect();
          return;
        }
        busy.add(conn);
        onConn(conn);
        try {
          const keys = ended ? [events, id] : [events, end, id, '0-0'];
          const got = (await timed(conn.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', ...keys), scope, 1000 + timeoutMs)) as [string, StreamEntry[]][] | null;
          for (const [key, entries] of got ?? []) {
            if (isStopped()) return;
            if (key === events && entries.length > 0) {
              id = entries[entries.length - 1]![0];
              const batch = parseEntries(entries);
              if (batch.length > 0) h.events(batch);
              if (hasEnd(entries) && !ended) {
                ended = true;
                if (!isStopped()) h.end();
              }
            }
          }
          if (!ended && got?.some(([key, entries]) => key === end && entries.length > 0)) {
            ended = true;
            if (!isStopped()) h.end();
          }
        } finally {
          onConn(undefined);
          busy.delete(conn);
          if (conn.status === 'ready' && !closed && !isStopped() && blocking.length < POOL) blocking.push(conn);
          else conn.disconnect();
        }
      }
    })().catch((e: unknown) => {
      if (!closed && !isStopped()) h.error(unavailable(e, scope));
    });
  };

  return {
    async acquire(scope, leaseMs) {
      const r = await run(ACQUIRE, scope, [Math.max(1, Math.round(leaseMs)), liveTtlMs]);
      if (r[0] === 'lease_held') throw new EventLogError('lease_held', 'another producer holds the lease', scope.responseId);
      return lease(r);
    },

    async renew(scope, token, leaseMs) {
      const r = await run(RENEW, scope, [token, Math.max(1, Math.round(leaseMs)), liveTtlMs]);
      if (r[0] === 'fenced') throw fenced(scope, token);
      return lease(r);
    },

    async release(scope, token) {
      await run(RELEASE, scope, [token]);
    },

    async append(scope, token, events) {
      ensureOpen(scope);
      const args: string[] = [];
      for (const e of events) {
        if (!placeable(e)) continue;
        args.push(String(e.sequence_number), isTerminalEvent(e) ? '1' : '0', JSON.stringify(e));
      }
      const c = await timed(client(), scope);
      let r: string[];
      if (isCluster(c)) r = await run(APPEND, scope, [token, liveTtlMs, ttlMs, maxEvents, maxBytes, ...args]);
      else {
        try {
          r = await appends.add(scope, token, args);
        } catch (e) {
          // A failed batch fails each of its appends, each naming its own response.
          throw e instanceof EventLogError && e.responseId !== scope.responseId ? new EventLogError(e.reason, e.message.replace(/^\w+: /, '').replace(/ \(response [^)]*\)$/, ''), scope.responseId) : unavailable(e, scope);
        }
      }
      appendResult(scope, token, r);
    },

    async read(scope, after, limit) {
      ensureOpen(scope);
      if (limit !== undefined && limit <= 0) return [];
      const { events } = redisStreamKeys(keyPrefix, scope);
      const start = after === undefined || after < 0 ? '-' : `${Math.floor(after) + 1}-0`;
      const c = await timed(client(), scope);
      const entries = await timed(
        limit === undefined ? c.xrange(events, start, '+') : c.xrange(events, start, '+', 'COUNT', Math.floor(limit)),
        scope,
      );
      return parseEntries(entries);
    },

    async wait(scope, after, waitMs, signal) {
      ensureOpen(scope);
      if (signal?.aborted) return false;
      const { events, end } = redisStreamKeys(keyPrefix, scope);
      const ids = [xreadIds(after), '0-0'];
      // Without blocking first: already there, or already ended (the `end` stream has an entry).
      const c = await timed(client(), scope);
      const now = await timed(c.xread('COUNT', 1, 'STREAMS', events, end, ...ids), scope);
      if (now !== null && now.length > 0) return true;
      if (closed || signal?.aborted) return false;
      if (!isCluster(c)) {
        try {
          return await tailOf(c).wait(events, end, ids[0] as string, waitMs, signal);
        } catch (e) {
          // One failure settles every waiter: each gets an error of its own, naming its response.
          throw e instanceof EventLogError && e.responseId === undefined ? new EventLogError(e.reason, e.message.replace(/^\w+: /, ''), scope.responseId) : unavailable(e, scope);
        }
      }
      // A Cluster: the streams live in different slots, so each wait blocks on a connection of its own.
      const deadline = Date.now() + waitMs;
      while (!closed && !signal?.aborted) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) return false;
        const conn = await takeBlocking(scope);
        if (closed || signal?.aborted) {
          conn.disconnect();
          return false;
        }
        busy.add(conn);
        const onAbort = (): void => conn.disconnect();
        signal?.addEventListener('abort', onAbort, { once: true });
        try {
          const got = await timed(conn.xread('COUNT', 1, 'BLOCK', Math.max(1, Math.ceil(remaining)), 'STREAMS', events, end, ...ids), scope, remaining + timeoutMs);
          if (got !== null && got.length > 0) return true;
        } catch (e) {
          if (closed || signal?.aborted) return false;
          conn.disconnect();
          throw e;
        } finally {
          signal?.removeEventListener('abort', onAbort);
          busy.delete(conn);
          if (conn.status === 'ready' && !closed && blocking.length < POOL) blocking.push(conn);
          else conn.disconnect();
        }
      }
      return false;
    },

    follow(scope, after, h) {
      let stopped = false;
      let unfollow: (() => void) | undefined;
      let conn: Redis | undefined;
      const isStopped = (): boolean => stopped || closed;
      // A handler may unfollow from inside a call: nothing more is called after that.
      const guarded: FollowHandlers = {
        events: (batch) => !isStopped() && h.events(batch),
        end: () => !isStopped() && h.end(),
        error: (e) => {
          if (isStopped()) return;
          stopped = true;
          h.error(e);
        },
      };
      client().then(
        (c) => {
          if (isStopped()) return;
          if (isCluster(c)) {
            followOnCluster(scope, after, guarded, isStopped, (x) => (conn = x));
            return;
          }
          const { events } = redisStreamKeys(keyPrefix, scope);
          // Only the events key: a cancel puts its entry there too (the end key is for `wait`).
          unfollow = tailOf(c).follow(
            events,
            xreadIds(after),
            (entries) => {
              let batch: ResponseStreamEvent[];
              try {
                batch = parseEntries(entries);
              } catch (e) {
                unfollow?.();
                guarded.error(unavailable(e, scope));
                return;
              }
              if (batch.length > 0) guarded.events(batch);
              if (hasEnd(entries)) guarded.end();
            },
            (e) => guarded.error(e instanceof EventLogError && e.responseId === undefined ? new EventLogError(e.reason, e.message.replace(/^\w+: /, ''), scope.responseId) : unavailable(e, scope)),
          );
        },
        (e: unknown) => guarded.error(unavailable(e, scope)),
      );
      return () => {
        stopped = true;
        unfollow?.();
        conn?.disconnect(); // a Cluster follower's blocking XREAD
      };
    },

    async state(scope): Promise<LogState | undefined> {
      const r = await run(STATE, scope, []);
      if (r.length === 0) return undefined;
      const [, holder, until, endOf, last, now] = r as [string, string, string, string, string, string];
      const live = holder !== '' && until !== '' && Number(until) > Number(now);
      return {
        lastSequenceNumber: last === '' ? undefined : Number(last),
        end: endOf === '' ? undefined : (endOf as LogEnd),
        lease: live ? { token: Number(holder), expiresAt: Number(until) } : undefined,
      };
    },

    async cancel(scope) {
      await run(CANCEL, scope, [ttlMs]);
    },

    async close() {
      if (closed) return;
      closed = true;
      tail?.close();
      for (const c of [...blocking, ...busy]) c.disconnect();
      blocking.length = 0;
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
