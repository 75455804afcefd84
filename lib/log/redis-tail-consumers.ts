import { type Id, idText, later, parseId, type StreamEntry } from './redis-stream-id.js';

// The consumers of the tail multiplexer (lib/log/redis-tail.ts) and how they map onto its XREADs: which keys
// and ids one XREAD names for all of them, whether the XREAD in flight covers a consumer, and which
// consumers the entries of a reply go to.

export interface Consumer {
  readonly events: string;
  /** The end key to watch too (a follower's stream marks its end in the events key itself: none). */
  readonly end: string | undefined;
  /** The entries after this id are wanted; a follower's advances as entries are handed to it. */
  after: Id;
}

export interface Waiter extends Consumer {
  settle(result: boolean | Error): void;
}

export interface Follower extends Consumer {
  readonly onEntries: (entries: StreamEntry[]) => void;
  readonly onError: (e: Error) => void;
  readonly onSynced?: ((at: number) => void) | undefined;
}

/** What one XREAD names, and what it covers: stream key → the id it reads after (end keys: '0-0'). */
export interface ReadPlan {
  readonly keys: string[];
  readonly ids: string[];
  readonly covers: Map<string, Id>;
}

/** The XREAD for `consumers`: per key, the smallest id any of its consumers reads after, then the end keys. */
export function readPlan(consumers: readonly Consumer[]): ReadPlan {
  const at = new Map<string, Id>();
  const ends = new Set<string>();
  for (const w of consumers) {
    const seen = at.get(w.events);
    if (seen === undefined || later(seen, w.after)) at.set(w.events, w.after);
    if (w.end !== undefined) ends.add(w.end);
  }
  const keys: string[] = [];
  const ids: string[] = [];
  for (const [key, id] of at) {
    keys.push(key);
    ids.push(idText(id));
  }
  for (const key of ends) {
    keys.push(key);
    ids.push('0-0');
  }
  const covers = new Map(at);
  for (const key of ends) covers.set(key, [0, 0]);
  return { keys, ids, covers };
}

/** Whether the XREAD in flight (what it covers; `undefined` when none is) returns what `c` waits for. */
export const covered = (inFlight: Map<string, Id> | undefined, c: Consumer): boolean => {
  if (inFlight === undefined) return false;
  const at = inFlight.get(c.events);
  return at !== undefined && !later(at, c.after) && (c.end === undefined || inFlight.has(c.end));
};

/**
 * Hands a reply's entries to the followers of their streams (advancing them) and settles the waiters it wakes.
 * `read` is what the XREAD read after, per key: a reply holds every entry after that id (up to COUNT), so it
 * is whole only for a follower whose cursor is at or after it. One that joined with an older cursor while
 * the XREAD was on its way gets nothing from it (the entries between its cursor and the read id are not in
 * the reply); the next XREAD reads after its cursor. `byKey`: the followers of each events key (the reply's
 * keys are looked up, not every follower visited: most of them have nothing in a reply of many streams).
 */
export function dispatch(got: [string, StreamEntry[]][], read: ReadonlyMap<string, Id>, byKey: ReadonlyMap<string, ReadonlySet<Follower>>, followers: ReadonlySet<Follower>, waiters: Set<Waiter>): void {
  for (const [key, entries] of got) {
    const mineOf = byKey.get(key);
    const from = read.get(key);
    if (mineOf === undefined || from === undefined || entries.length === 0) continue;
    // A copy: a callback may unfollow, or follow again.
    for (const f of [...mineOf]) {
      if (!followers.has(f) || later(from, f.after)) continue; // unfollowed by an earlier callback; or joined behind the read
      let first = 0;
      while (first < entries.length && !later(parseId(entries[first]![0]), f.after)) first++;
      if (first < entries.length) {
        const mine = first === 0 ? entries : entries.slice(first);
        f.after = parseId(mine[mine.length - 1]![0]);
        f.onEntries(mine);
      }
    }
  }
  if (waiters.size === 0) return;
  const ofKey = new Map<string, StreamEntry[]>();
  for (const [key, entries] of got) if (entries.length > 0) ofKey.set(key, entries);
  for (const w of [...waiters]) {
    if (w.end !== undefined && ofKey.has(w.end)) w.settle(true);
    else {
      const entries = ofKey.get(w.events);
      if (entries !== undefined && later(parseId(entries[entries.length - 1]![0]), w.after)) w.settle(true);
    }
  }
}

/**
 * After an XREAD sent at `at` returned (its entries dispatched): tells each follower it read whole, and not cut
 * short by COUNT (`cut`: the keys that got COUNT entries), that it has every entry stored before `at`. Its
 * reader can tell a slow tail (still reading it) from a stalled one.
 */
export function synced(read: ReadonlyMap<string, Id>, cut: ReadonlySet<string>, followers: ReadonlySet<Follower>, at: number): void {
  for (const f of [...followers]) {
    if (f.onSynced === undefined || !followers.has(f) || cut.has(f.events)) continue;
    const from = read.get(f.events);
    if (from !== undefined && !later(from, f.after)) f.onSynced(at);
  }
}
