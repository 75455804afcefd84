import { exhausted, isTransient } from './redis-retry.js';
import { parseId, type StreamEntry } from './redis-stream-id.js';
import type { RedisTail } from './redis-tail.js';

// Readers that ride through a failure of the tail they are registered with (lib/log/redis-tail.ts): a closed
// connection, a restarted Redis, a Cluster failover's MOVED or CLUSTERDOWN. Such a failure drops every
// consumer of that tail; each one here is registered again after a backoff, with the tail that serves its
// stream then (a Cluster's slot map asked again first), a follower after the id of the last entry it was
// handed (so no entry is handed twice or skipped), a waiter for the time it has left. Only a failure that
// outlasts the log's retry budget (counted from the first failure since the stream was last read) reaches
// the reader, as `unavailable`; any other failure at once.

/** Where the consumers of one log are registered, and how long they keep trying. */
export interface TailRoute {
  /** The tail serving `events` now; `refresh`: after a failure (a Cluster asks for its slot map again first). */
  tail(events: string, refresh: boolean): Promise<RedisTail>;
  readonly budgetMs: number;
  /** True once the log is closed: nothing is tried again then. */
  isClosed(): boolean;
  /** Aborted when the log closes: a pause before trying again ends then (no timer outlives the log). */
  readonly closing: AbortSignal;
}

const FIRST_PAUSE_MS = 50;
const MAX_PAUSE_MS = 1000;

/** The pause before try `n` (1, 2, …): doubling from 50 ms up to 1 s, with jitter, so that the readers of a failed node do not all come back at once. */
const pause = (n: number): number => Math.round(Math.min(MAX_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (n - 1)) * (0.5 + Math.random() / 2));

/**
 * `tail.follow` through `route`, registered again after each transient failure (see above). `resume`, when
 * given, is awaited before each registration after a failure with the follower's cursor (the id of the last
 * entry handed over, or the one it started after): it throws when the stream no longer reaches it (events lost
 * in a failover), and that ends the follow; it may answer the cursor to go on from instead. Returns the unfollow.
 */
export function followRiding(
  route: TailRoute,
  events: string,
  id: string,
  onEntries: (entries: StreamEntry[]) => void,
  onError: (e: Error) => void,
  onSynced?: (at: number) => void,
  resume?: (cursor: string) => Promise<string | undefined>,
): () => void {
  let cursor = id;
  let stopped = false;
  let unfollow: (() => void) | undefined;
  let pausing: AbortController | undefined;
  /** When the failures since the stream was last read began; undefined while it reads. */
  let failingSince: number | undefined;
  let tries = 0;

  const ok = (): void => {
    failingSince = undefined;
    tries = 0;
  };
  const fail = (e: unknown): void => {
    if (stopped) return;
    stopped = true;
    onError(e instanceof Error ? e : new Error(String(e)));
  };

  const register = (tail: RedisTail): void => {
    if (stopped) return;
    unfollow = tail.follow(
      events,
      cursor,
      (entries) => {
        ok();
        cursor = entries[entries.length - 1]![0];
        onEntries(entries);
      },
      failed,
      (at) => {
        ok();
        onSynced?.(at);
      },
    );
  };

  function failed(e: unknown): void {
    unfollow = undefined;
    if (stopped) return;
    const now = Date.now();
    failingSince ??= now;
    const wait = pause(++tries);
    if (!isTransient(e) || route.isClosed()) return fail(e);
    if (now + wait - failingSince > route.budgetMs) return fail(exhausted(e, route.budgetMs));
    const p = (pausing = new AbortController());
    void sleepUnless(wait, p.signal, route.closing)
      .then(async () => {
        if (pausing === p) pausing = undefined;
        if (stopped || route.isClosed() || p.signal.aborted) return undefined;
        // It may move the cursor back (a follower holding entries it has not handed over drops them and reads them again).
        cursor = (await resume?.(cursor)) ?? cursor;
        return route.tail(events, true);
      })
      .then(
        (tail) => tail !== undefined && register(tail),
        (err: unknown) => (stopped ? undefined : failed(err)),
      );
  }

  route.tail(events, false).then(register, failed);
  return () => {
    stopped = true;
    pausing?.abort();
    unfollow?.();
  };
}

/**
 * `tail.wait` through `route`, waited again (for the time left) after each transient failure within the
 * budget; past it, `unavailable`.
 */
export async function waitRiding(route: TailRoute, events: string, end: string, id: string, waitMs: number, signal?: AbortSignal): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  let failingSince: number | undefined;
  let refresh = false;
  for (let tries = 1; ; tries++) {
    try {
      const tail = await route.tail(events, refresh);
      return await tail.wait(events, end, id, Math.max(0, deadline - Date.now()), signal);
    } catch (e) {
      const now = Date.now();
      failingSince ??= now;
      const wait = pause(tries);
      if (!isTransient(e) || route.isClosed()) throw e;
      if (now + wait - failingSince > route.budgetMs) throw exhausted(e, route.budgetMs);
      // Nothing came before the failure: the wait's time is up anyway, false as any wait that ran out.
      if (now + wait >= deadline || aborted(signal)) return false;
      await sleepUnless(wait, signal, route.closing);
      if (route.isClosed() || aborted(signal)) return false;
      refresh = true;
    }
  }
}

const aborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

// One 'abort' listener per signal, whatever the number of pauses on it: the log's closing signal is shared by
// every consumer riding through a failure at once (hundreds after a node died), and Node warns past 10
// listeners on one AbortSignal.
const onAbortOf = new WeakMap<AbortSignal, Set<() => void>>();
function onAbort(signal: AbortSignal, f: () => void): () => void {
  let pending = onAbortOf.get(signal);
  if (pending === undefined) {
    const all = new Set<() => void>();
    pending = all;
    onAbortOf.set(signal, all);
    signal.addEventListener('abort', () => {
      for (const g of [...all]) g();
      all.clear();
    }, { once: true });
  }
  pending.add(f);
  const mine = pending;
  return () => void mine.delete(f);
}

/** Resolves after `ms`, or at once on an abort of any of `signals` (its timer cleared: nothing keeps the process alive). */
function sleepUnless(ms: number, ...signals: (AbortSignal | undefined)[]): Promise<void> {
  return new Promise<void>((resolve) => {
    const offs: (() => void)[] = [];
    const done = (): void => {
      clearTimeout(timer);
      for (const off of offs) off();
      resolve();
    };
    const timer = setTimeout(done, ms);
    for (const s of signals) {
      if (s === undefined) continue;
      if (s.aborted) return done();
      offs.push(onAbort(s, done));
    }
  });
}

/** The sequence number of an entry id (the log stores an event as `<sequence_number>-1`, several under the last one's, a cancel as `<last>-2`). */
export const sequenceOf = (id: string): number => parseId(id)[0];
