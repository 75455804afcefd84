// The tail multiplexer of `redisEventLog` (lib/log/redis.ts): every `wait` and every `follow` of one log
// instance shares ONE blocking connection. It keeps the streams being tailed, each with the id after which it
// is wanted (the smallest of its consumers'), and the `:end` keys of the waiters, and issues one
// `XREAD COUNT n BLOCK <≤ 1 s> STREAMS k1 k2 … id1 id2 …` for all of them. The entries of the reply go
// straight to the followers of their stream (no second read), who stay registered, their ids advanced here:
// a stream that keeps getting entries costs nothing but its share of the next XREAD. One-shot waiters settle.
// A consumer the XREAD in flight does not cover wakes it: every XREAD also names a wake stream of this tail's
// own (read after the last wake entry it saw), and an XADD there (sent on the main connection) returns it,
// batched: the new consumers of about a millisecond share one. No `CLIENT UNBLOCK` (an @admin command a
// least-privilege ACL user lacks) and no race: a wake that lands before the XREAD does returns it at once.
// A single Redis only (with liveReads 'xread', the default): a Cluster refuses one XREAD across slots (CROSSSLOT),
// so it is read through one subscriber connection per master instead (lib/log/redis-cluster-tail.ts). A failure fails its consumers; the
// readers on top (lib/log/redis-tail-retry.ts) register again, within the log's retry budget, with their cursors.
import type { Redis } from 'ioredis';
import { covered as coveredBy, dispatch, type Follower, readPlan, synced, type Waiter } from './redis-tail-consumers.js';
import { type Id, idText, later, parseId, type StreamEntry } from './redis-stream-id.js';

export { parseId, type StreamEntry } from './redis-stream-id.js';

/** The longest single XREAD BLOCK, in ms, by default. */
const BLOCK_MS = 1000;
/** Followers are told they are synced after an XREAD at most this often, in ms (and after every XREAD that timed out). */
const SYNC_MS = 100;
/** New consumers arriving within this many ms share one wake. */
const WAKE_BATCH_MS = 1;
/**
 * The shortest time between two XREADs while entries keep coming: 1 ms, and 1 ms more per 1,000 keys named
 * (at most 4 ms). Every XREAD names every tailed key, so its cost grows with their number: with many streams
 * each getting an entry now and then, an XREAD per entry would cost a pass over all keys per entry.
 */
const minCycleMs = (keys: number): number => Math.min(4, 1 + Math.floor(keys / 1000));

export interface RedisTailOptions {
  /** A new, connected blocking connection (a duplicate of the main client that fails fast). */
  readonly connect: () => Promise<Redis>;
  /** A stream key of this tail's own (no other tail's): every XREAD names it too, after the last entry seen there. */
  readonly wakeKey: string;
  /** Adds an entry to `wakeKey` on another connection (returning the XREAD in flight); rejects when Redis refused it. */
  readonly wake: () => Promise<unknown>;
  /**
   * Whether a failed `wake` means Redis refuses it for good (an ACL without XADD or the key): then every consumer
   * fails with it, rather than each new one waiting out the block. Other failures: the XREAD returns by itself.
   */
  readonly isRefusal?: (e: unknown) => boolean;
  /** `p`, or a rejection after `ms`. */
  readonly timed: <T>(p: Promise<T>, ms: number) => Promise<T>;
  /** The error a consumer gets when Redis fails. */
  readonly failure: (e: unknown) => Error;
  /**
   * Told first when Redis failed, before the consumers are (each is dropped and told once): a Cluster's slot
   * tail is retired then, so that the consumers trying again are routed afresh.
   */
  readonly onFail?: () => void;
  /** Bound on one command beyond its block time, in ms. */
  readonly timeoutMs: number;
  /** Most entries one XREAD returns per stream. Default 500. */
  readonly count?: number;
  /** The longest single XREAD BLOCK, in ms. Default 1000. */
  readonly blockMs?: number;
}

export interface RedisTail {
  /**
   * Resolves `true` when `events` gets an entry after `id` or `end` gets any entry, `false` after `waitMs` or
   * on an abort of `signal` or on `close()`; rejects with `failure(e)` when Redis fails.
   */
  wait(events: string, end: string, id: string, waitMs: number, signal?: AbortSignal): Promise<boolean>;
  /**
   * Hands every entry of `events` after `id` to `onEntries` as it arrives (in order, each once), and calls
   * `onError` (once, then nothing more) when Redis fails. After an XREAD that read the stream whole for it (one
   * every SYNC_MS at most, and every one that timed out), `onSynced(at)`: every entry stored before `at`
   * (Date.now() when that XREAD was sent) has been handed over.
   * Returns the unfollow.
   */
  follow(events: string, id: string, onEntries: (entries: StreamEntry[]) => void, onError: (e: Error) => void, onSynced?: (at: number) => void): () => void;
  close(): void;
}

export function redisTail(options: RedisTailOptions): RedisTail {
  const count = Math.max(1, options.count ?? 500);
  const blockMs = Math.max(1, options.blockMs ?? BLOCK_MS);
  const { wakeKey } = options;
  const waiters = new Set<Waiter>();
  const followers = new Set<Follower>();
  /** The followers of each events key (dispatch looks up a reply's keys instead of visiting every follower). */
  const byKey = new Map<string, Set<Follower>>();
  const unlist = (f: Follower): void => {
    if (followers.delete(f)) replan();
    const mine = byKey.get(f.events);
    if (mine !== undefined && mine.delete(f) && mine.size === 0) byKey.delete(f.events);
  };
  let conn: Redis | undefined;
  let connecting: Promise<Redis> | undefined;
  let running = false;
  let closed = false;
  /** What the XREAD in flight covers: stream key → the id it reads after (end keys: '0-0'); undefined when none is in flight. */
  let inFlight: Map<string, Id> | undefined;
  let cycle = 0;
  /** When the followers were last told they are synced (the XREAD's send time). */
  let lastSynced = 0;
  /**
   * The XREAD for the consumers as they are, kept while none comes or goes (with many streams, building it anew
   * per XREAD cost about as much as the entries it returned): `args` as sent, `covers` what it reads after, `at`
   * each events key's position in `args` (its id: moved on in place as its followers advance).
   */
  let plan: { readonly args: (string | number)[]; readonly covers: Map<string, Id>; readonly at: Map<string, number>; readonly keys: number } | undefined;
  const replan = (): void => {
    plan = undefined;
  };
  const planned = (): NonNullable<typeof plan> => {
    if (plan !== undefined) return plan;
    const { keys, ids, covers } = readPlan(consumers());
    const at = new Map<string, number>();
    const first = 6 + keys.length; // 'COUNT' n 'BLOCK' ms 'STREAMS' keys… wakeKey ids… wakeSeen
    for (let i = 0; i < keys.length; i++) at.set(keys[i]!, first + i);
    return (plan = { args: ['COUNT', count, 'BLOCK', blockMs, 'STREAMS', ...keys, wakeKey, ...ids, wakeSeen], covers, at, keys: keys.length });
  };
  /** After a reply was handed over: the ids of its keys moved on to where their consumers now are. */
  const advance = (p: NonNullable<typeof plan>, got: [string, StreamEntry[]][]): void => {
    for (const [key] of got) {
      const i = p.at.get(key);
      if (i === undefined) continue;
      let min: Id | undefined;
      for (const f of byKey.get(key) ?? []) if (min === undefined || later(min, f.after)) min = f.after;
      for (const w of waiters) if (w.events === key && (min === undefined || later(min, w.after))) min = w.after;
      if (min === undefined) continue;
      p.covers.set(key, min);
      p.args[i] = idText(min);
    }
  };
  let wakeTimer: ReturnType<typeof setTimeout> | undefined;
  let waking = false;
  /** The last wake entry an XREAD returned: the next one reads after it, so no wake is missed or seen twice. */
  let wakeSeen = '0-0';
  let pace: ReturnType<typeof setTimeout> | undefined;
  let wakePace: (() => void) | undefined;

  const drop = (): void => {
    const c = conn;
    conn = undefined;
    c?.disconnect();
  };

  const connection = async (): Promise<Redis> => {
    if (conn !== undefined && conn.status === 'ready') return conn;
    drop();
    connecting ??= (async () => {
      const c = await options.connect();
      if (closed) {
        c.disconnect();
        throw new Error('the log is closed');
      }
      conn = c;
      return c;
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  const consumers = (): (Waiter | Follower)[] => [...waiters, ...followers];

  const failAll = (e: unknown): void => {
    const err = options.failure(e);
    options.onFail?.();
    for (const w of [...waiters]) w.settle(err);
    for (const f of [...followers]) {
      unlist(f);
      f.onError(err);
    }
  };

  /** Whether the XREAD in flight returns what `c` waits for. */
  const covered = (c: Waiter | Follower): boolean => coveredBy(inFlight, c);

  /** Wakes the XREAD in flight so that it is re-issued with the consumers added since. */
  const interrupt = async (): Promise<void> => {
    if (waking) return;
    waking = true;
    const c = cycle;
    try {
      await options.wake();
    } catch (e) {
      // Refused for good (an ACL without XADD or the key): said at once, not as a stall per new consumer.
      if (!closed && options.isRefusal?.(e) === true) failAll(e);
      // Otherwise the XREAD returns by itself within blockMs.
    } finally {
      waking = false;
      // Added while this wake was under way, for an XREAD issued since:
      if (!closed && inFlight !== undefined && cycle !== c && consumers().some((w) => !covered(w))) schedule();
    }
  };

  /** A new consumer: start the loop, or interrupt the XREAD in flight (once for all that arrive within UNBLOCK_BATCH_MS). */
  const schedule = (): void => {
    if (!running) {
      void loop();
      return;
    }
    if (pace !== undefined) {
      // Between two XREADs: the next one takes it, at once.
      wakePace?.();
      return;
    }
    if (inFlight === undefined || wakeTimer !== undefined) return;
    wakeTimer = setTimeout(() => {
      wakeTimer = undefined;
      if (!closed && consumers().some((w) => !covered(w))) void interrupt();
    }, WAKE_BATCH_MS);
  };

  const loop = async (): Promise<void> => {
    running = true;
    let issued = 0;
    try {
      while (!closed && (waiters.size > 0 || followers.size > 0)) {
        let c: Redis;
        try {
          c = await connection();
        } catch (e) {
          if (closed) break;
          failAll(e);
          continue;
        }
        if (closed) break;
        const p = planned();
        if (p.keys === 0) {
          replan();
          continue; // all gone while connecting
        }
        const { covers } = p;
        p.args[p.args.length - 1] = wakeSeen;
        inFlight = covers;
        cycle++;
        issued = Date.now();
        let got: [string, StreamEntry[]][] | null;
        try {
          // The arguments as one array (ioredis flattens it): not spread anew per XREAD.
          const read = (c.xread as unknown as (this: Redis, args: readonly (string | number)[]) => Promise<unknown>).call(c, p.args);
          got = (await options.timed(read, blockMs + options.timeoutMs)) as typeof got;
        } catch (e) {
          inFlight = undefined;
          if (closed) break;
          drop();
          failAll(e);
          continue;
        }
        inFlight = undefined;
        got = withoutWake(got);
        const cut = new Set<string>();
        for (const [key, entries] of got ?? []) if (entries.length >= count) cut.add(key);
        if (got !== null && got.length > 0) dispatch(got, covers, byKey, followers, waiters);
        // Every follower, every SYNC_MS at most: with many streams, a pass over all of them per XREAD cost more than
        // the entries it handed over.
        if (issued - lastSynced >= SYNC_MS || got === null) {
          lastSynced = issued;
          // An XREAD that timed out blocked from no earlier than it was sent for blockMs, and no entry came on its
          // keys meanwhile: every one stored before then was read. (Told its sending time, a quiet follower was
          // always one to two blocks behind, and its reader's check took that for a stalled follow and read the
          // stream itself.)
          synced(covers, cut, followers, got === null ? Math.min(Date.now(), issued + blockMs) : issued);
        }
        if (got !== null && plan === p) advance(p, got);
        if (got === null || got.length === 0) continue;
        // Entries came: let more gather before naming every key again (a new consumer cuts the pause short),
        // unless a stream has more waiting than one XREAD returns (a backlog is read at once).
        const rest = issued + minCycleMs(p.keys) - Date.now();
        if (rest > 0 && !closed && cut.size === 0) {
          await new Promise<void>((r) => {
            wakePace = r;
            pace = setTimeout(r, rest);
          });
          clearTimeout(pace);
          pace = undefined;
          wakePace = undefined;
        }
      }
    } finally {
      running = false;
      inFlight = undefined;
    }
  };

  /** The reply without the wake stream's entries (the last one remembered in `wakeSeen`). */
  const withoutWake = (got: [string, StreamEntry[]][] | null): [string, StreamEntry[]][] | null => {
    const at = got?.findIndex(([key]) => key === wakeKey) ?? -1;
    if (got === null || at < 0) return got;
    const entries = got[at]![1];
    if (entries.length > 0) wakeSeen = entries[entries.length - 1]![0];
    return got.filter((_, i) => i !== at);
  };

  return {
    wait(events, end, id, waitMs, signal) {
      if (closed || signal?.aborted) return Promise.resolve(false);
      return new Promise<boolean>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        let settled = false;
        const onAbort = (): void => w.settle(false);
        const w: Waiter = {
          events,
          end,
          after: parseId(id),
          settle(result) {
            if (settled) return;
            settled = true;
            waiters.delete(w);
            replan();
            if (timer !== undefined) clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            if (result instanceof Error) reject(result);
            else resolve(result);
          },
        };
        waiters.add(w);
        replan();
        timer = setTimeout(() => w.settle(false), Math.max(0, waitMs));
        signal?.addEventListener('abort', onAbort, { once: true });
        if (!covered(w)) schedule();
      });
    },

    follow(events, id, onEntries, onError, onSynced) {
      if (closed) return () => undefined;
      const f: Follower = { events, end: undefined, after: parseId(id), onEntries, onError, onSynced };
      followers.add(f);
      replan();
      let mine = byKey.get(events);
      if (mine === undefined) byKey.set(events, (mine = new Set()));
      mine.add(f);
      if (!covered(f)) schedule();
      return () => {
        unlist(f);
      };
    },

    close() {
      if (closed) return;
      closed = true;
      if (wakeTimer !== undefined) clearTimeout(wakeTimer);
      wakePace?.();
      for (const w of [...waiters]) w.settle(false);
      followers.clear();
      byKey.clear();
      drop();
    },
  };
}
