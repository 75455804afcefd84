// The tail multiplexer of `redisEventLog` (lib/log/redis.ts): every `wait` of one log instance shares ONE
// blocking connection. It keeps the set of (events key, last id) pairs being waited on (and their `:end` keys),
// issues one `XREAD COUNT 1 BLOCK <≤ 1 s> STREAMS k1 k2 … id1 id2 …` for all of them, resolves the waiters
// whose streams got an entry past their id (or ended), and issues the next. A waiter on a pair the XREAD in
// flight does not cover interrupts it with `CLIENT UNBLOCK` (sent on the main connection), so it does not
// wait for the block time. Only for a single Redis: on a Cluster the keys of different streams live in
// different slots, and one XREAD cannot span them.
import type { Redis } from 'ioredis';

/** The longest single XREAD BLOCK, in ms. */
const BLOCK_MS = 1000;

interface Waiter {
  readonly events: string;
  readonly end: string;
  /** The stream id after which an entry wakes this waiter. */
  readonly id: string;
  readonly after: readonly [number, number];
  settled: boolean;
  settle(result: boolean | Error): void;
}

export interface RedisTailOptions {
  /** A new, connected blocking connection (a duplicate of the main client that fails fast). */
  readonly connect: () => Promise<Redis>;
  /** Sends `CLIENT UNBLOCK <id>` on another connection; resolves with how many clients it unblocked. */
  readonly unblock: (clientId: number) => Promise<number>;
  /** `p`, or a rejection after `ms`. */
  readonly timed: <T>(p: Promise<T>, ms: number) => Promise<T>;
  /** The error a waiter gets when Redis fails. */
  readonly failure: (e: unknown) => Error;
  /** Bound on one command beyond its block time, in ms. */
  readonly timeoutMs: number;
}

const parseId = (id: string): [number, number] => {
  const dash = id.indexOf('-');
  return dash < 0 ? [Number(id), 0] : [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
};
const later = (a: readonly [number, number], b: readonly [number, number]): boolean => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
const pairOf = (key: string, id: string): string => `${key}\n${id}`;

export interface RedisTail {
  /**
   * Resolves `true` when `events` gets an entry after `id` or `end` gets any entry, `false` after `waitMs` or
   * on an abort of `signal` or on `close()`; rejects with `failure(e)` when Redis fails.
   */
  wait(events: string, end: string, id: string, waitMs: number, signal?: AbortSignal): Promise<boolean>;
  close(): void;
}

export function redisTail(options: RedisTailOptions): RedisTail {
  const waiters = new Set<Waiter>();
  let conn: Redis | undefined;
  let connId: number | undefined;
  let connecting: Promise<Redis> | undefined;
  let running = false;
  let closed = false;
  /** The pairs (and end keys) the XREAD in flight covers; undefined when none is in flight. */
  let inFlight: Set<string> | undefined;
  let cycle = 0;
  let unblocking = false;

  const drop = (): void => {
    const c = conn;
    conn = undefined;
    connId = undefined;
    c?.disconnect();
  };

  const connection = async (): Promise<Redis> => {
    if (conn !== undefined && conn.status === 'ready') return conn;
    drop();
    connecting ??= (async () => {
      const c = await options.connect();
      try {
        const id = await options.timed(c.client('ID') as Promise<number>, options.timeoutMs);
        if (closed) throw new Error('the log is closed');
        conn = c;
        connId = Number(id);
        return c;
      } catch (e) {
        c.disconnect();
        throw e;
      }
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  };

  const failAll = (e: unknown): void => {
    const err = options.failure(e);
    for (const w of [...waiters]) w.settle(err);
  };

  /** Interrupts the XREAD in flight so that it is re-issued with the waiters added since. */
  const interrupt = async (): Promise<void> => {
    if (unblocking) return;
    unblocking = true;
    const c = cycle;
    try {
      // The UNBLOCK may reach Redis before the XREAD does (another connection): then it unblocks nothing; try again.
      for (let attempt = 0; attempt < 20 && !closed && inFlight !== undefined && cycle === c && connId !== undefined; attempt++) {
        if ((await options.unblock(connId)) > 0) return;
        await new Promise<void>((r) => setTimeout(r, Math.min(1 + attempt, 10)));
      }
    } catch {
      // the XREAD returns by itself within BLOCK_MS
    } finally {
      unblocking = false;
      // Added while this UNBLOCK was under way, for an XREAD issued since:
      if (!closed && inFlight !== undefined && cycle !== c && [...waiters].some((w) => !covered(w))) void interrupt();
    }
  };

  const covered = (w: Waiter): boolean => inFlight !== undefined && inFlight.has(pairOf(w.events, w.id)) && inFlight.has(w.end);

  const loop = async (): Promise<void> => {
    running = true;
    try {
      while (!closed && waiters.size > 0) {
        let c: Redis;
        try {
          c = await connection();
        } catch (e) {
          if (closed) break;
          failAll(e);
          continue;
        }
        if (closed) break;
        const pairs = new Map<string, [string, string]>();
        const ends = new Set<string>();
        for (const w of waiters) {
          pairs.set(pairOf(w.events, w.id), [w.events, w.id]);
          ends.add(w.end);
        }
        const keys: string[] = [];
        const ids: string[] = [];
        for (const [key, id] of pairs.values()) {
          keys.push(key);
          ids.push(id);
        }
        for (const key of ends) {
          keys.push(key);
          ids.push('0-0');
        }
        inFlight = new Set([...pairs.keys(), ...ends]);
        cycle++;
        let got: [string, [string, string[]][]][] | null;
        try {
          got = (await options.timed(c.xread('COUNT', 1, 'BLOCK', BLOCK_MS, 'STREAMS', ...keys, ...ids), BLOCK_MS + options.timeoutMs)) as typeof got;
        } catch (e) {
          inFlight = undefined;
          if (closed) break;
          drop();
          failAll(e);
          continue;
        }
        inFlight = undefined;
        if (got === null || got.length === 0) continue;
        // The latest entry returned per key: a waiter wakes when it is past the waiter's id (an end key: any).
        const latest = new Map<string, [number, number]>();
        for (const [key, entries] of got) {
          for (const [id] of entries) {
            const parsed = parseId(id);
            const seen = latest.get(key);
            if (seen === undefined || later(parsed, seen)) latest.set(key, parsed);
          }
        }
        for (const w of [...waiters]) {
          if (latest.has(w.end)) w.settle(true);
          else {
            const l = latest.get(w.events);
            if (l !== undefined && later(l, w.after)) w.settle(true);
          }
        }
      }
    } finally {
      running = false;
      inFlight = undefined;
    }
  };

  return {
    wait(events, end, id, waitMs, signal) {
      if (closed || signal?.aborted) return Promise.resolve(false);
      return new Promise<boolean>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const onAbort = (): void => w.settle(false);
        const w: Waiter = {
          events,
          end,
          id,
          after: parseId(id),
          settled: false,
          settle(result) {
            if (w.settled) return;
            w.settled = true;
            waiters.delete(w);
            if (timer !== undefined) clearTimeout(timer);
            signal?.removeEventListener('abort', onAbort);
            if (result instanceof Error) reject(result);
            else resolve(result);
          },
        };
        waiters.add(w);
        timer = setTimeout(() => w.settle(false), Math.max(0, waitMs));
        signal?.addEventListener('abort', onAbort, { once: true });
        if (!running) void loop();
        else if (inFlight !== undefined && !covered(w)) void interrupt();
      });
    },

    close() {
      if (closed) return;
      closed = true;
      for (const w of [...waiters]) w.settle(false);
      drop();
    },
  };
}
