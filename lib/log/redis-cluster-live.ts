import type { Redis } from 'ioredis';
import { idText, later, parseId, type StreamEntry } from './redis-stream-id.js';
import type { RedisTail } from './redis-tail.js';
import { subscriptionCommands } from './redis-subscription-commands.js';

// Live reading on a Redis Cluster, for one master node (and on a single Redis with liveReads 'subscribe', for
// it: lib/log/redis-connection.ts): ONE subscriber connection to it, SSUBSCRIBEd to the
// live channel of every stream this process follows or waits on there (a Cluster cannot XREAD streams of
// different slots at once, CROSSSLOT, but one connection can SSUBSCRIBE channels of any slots its node serves).
// Each append publishes the entries it stored on its stream's channel (APPEND_LIVE, CANCEL in
// lib/log/redis-scripts.ts), in the same slot. A follower subscribes first, then reads what is stored after its
// cursor (XRANGE through the Cluster client), then hands over the messages after it (those that came during
// that read were kept): each entry once, in order. A waiter subscribes, then looks (non-blocking XREAD), then
// waits for a message. `synced`: after the catch-up, then every second a PING on the subscriber connection:
// its PONG comes after every message published before it. Any failure of the connection (killed, node gone,
// a slot moved: MOVED, an unasked `sunsubscribe`) fails every consumer with a transient error: they ride
// through it (lib/log/redis-tail-retry.ts) and come back, routed afresh, catching up from their cursors.

/** The live channel of a stream's events key (`<keyBase>:events` → `<keyBase>:live`): same hash tag, same slot. */
export const liveChannel = (events: string): string => `${events.slice(0, events.lastIndexOf(':'))}:live`;

/** How often followers are told they are synced (a PING round trip on the subscriber connection). */
const SYNC_MS = 1000;
/** How long the connection stays open after its last consumer left (the next one reuses it). */
const IDLE_MS = 5000;
/** Most entries one catch-up XRANGE returns. */
const COUNT = 500;

export interface NodeLiveOptions {
  /** A new, connected connection to the node that fails fast (no reconnect, no queue). */
  readonly connect: () => Promise<Redis>;
  /** Up to `count` entries of `events` after `id` (XRANGE through the Cluster client). */
  readonly read: (events: string, id: string, count: number) => Promise<StreamEntry[]>;
  /** Whether `events` has an entry after `id` or `end` has any (a non-blocking XREAD through the Cluster client). */
  readonly peek: (events: string, end: string, id: string) => Promise<boolean>;
  /** `p`, or a rejection after the log's command timeout. */
  readonly timed: <T>(p: Promise<T>) => Promise<T>;
  /** The error a consumer gets when Redis fails. */
  readonly failure: (e: unknown) => Error;
  /** Told first when it is taken out of use (failed, idle), before the consumers are: none may come back to it. */
  readonly onRetire: () => void;
  /**
   * A channel's hash slot, on a Cluster node (one SSUBSCRIBE may name channels of one slot only: CROSSSLOT);
   * `undefined` on a single Redis, where one command names every channel.
   */
  readonly slotOf?: (channel: string) => number;
}

interface Consumer {
  /** Entries published on its channel (`end`: the end key got an entry, a waiter's wake-up). */
  message(entries: StreamEntry[], end: boolean): void;
  fail(e: Error): void;
  /** The log closes: a waiter ends with false, a follower is dropped without a word. */
  close(): void;
}

interface Channel {
  readonly consumers: Set<Consumer>;
  /** Settles once the SSUBSCRIBE answered. */
  readonly subscribed: Promise<void>;
  /** Whether it answered. */
  done: boolean;
}

/** A message's entries: one per line, `<id> <field> <value>`; a line `end` says the end key got an entry. */
function parseMessage(message: string): { entries: StreamEntry[]; end: boolean } {
  const entries: StreamEntry[] = [];
  let end = false;
  for (const line of message.split('\n')) {
    const a = line.indexOf(' ');
    const b = a < 0 ? -1 : line.indexOf(' ', a + 1);
    if (b < 0) end ||= line === 'end';
    else entries.push([line.slice(0, a), [line.slice(a + 1, b), line.slice(b + 1)]]);
  }
  return { entries, end };
}

/** What the consumers of a failed connection get: a transient failure (isTransient), so they are routed again. */
const closedError = (why: string): Error => new Error(`Connection is closed (the live subscriber connection ${why})`);

/** ioredis's own view of what the connection is SSUBSCRIBEd to (to notice an unasked `sunsubscribe`), when it shows it. */
function subscribedOf(c: Redis): ReadonlySet<string> | undefined {
  const sub = (c as unknown as { condition?: { subscriber?: { channels?: (set: string) => string[] } | false } }).condition?.subscriber;
  if (sub === false) return new Set();
  return typeof sub?.channels === 'function' ? new Set(sub.channels('ssubscribe')) : undefined;
}

export interface NodeLive extends RedisTail {
  /** Whether it failed or was closed: a new one serves the node's next consumers. */
  readonly retired: () => boolean;
}

export function nodeLive(options: NodeLiveOptions): NodeLive {
  const channels = new Map<string, Channel>();
  const followers = new Set<{ live: boolean; synced: ((at: number) => void) | undefined }>();
  let conn: Promise<Redis> | undefined;
  let retired = false;
  let idle: ReturnType<typeof setTimeout> | undefined;
  let ticker: ReturnType<typeof setInterval> | undefined;
  let pinging = false;

  const stopTimers = (): void => {
    if (idle !== undefined) clearTimeout(idle);
    if (ticker !== undefined) clearInterval(ticker);
    idle = ticker = undefined;
  };

  const disconnect = (): void => {
    const c = conn;
    conn = undefined;
    void c?.then((r) => r.disconnect(), () => undefined);
  };

  /** Takes this node out of use (its connection closed); returns its consumers, to be told. */
  const retire = (): Consumer[] => {
    if (retired) return [];
    retired = true;
    stopTimers();
    disconnect();
    options.onRetire();
    const all = [...channels.values()].flatMap((ch) => [...ch.consumers]);
    channels.clear();
    followers.clear();
    return all;
  };

  /** The connection failed: every consumer fails (each once), to ride through it. */
  const failAll = (e: unknown): void => {
    const all = retire();
    if (all.length === 0) return;
    const err = options.failure(e);
    for (const c of all) c.fail(err);
  };

  const connection = (): Promise<Redis> =>
    (conn ??= options.connect().then((c) => {
      if (retired) {
        c.disconnect();
        throw closedError('was closed');
      }
      c.on('smessage', (name: string, message: string) => {
        const ch = channels.get(name);
        if (ch === undefined) return;
        const { entries, end } = parseMessage(message);
        for (const x of [...ch.consumers]) x.message(entries, end);
      });
      c.on('close', () => failAll(closedError('closed')));
      // ioredis: an SSUBSCRIBE answered MOVED (the slot is served elsewhere); an unasked reply (Redis's own
      // `sunsubscribe` when a slot moves away) is an 'error' (a command queue state error).
      c.on('moved', () => failAll(new Error('MOVED (a live channel of this node is served by another node now)')));
      c.on('error', (e: Error) => failAll(closedError(`failed: ${e.message}`)));
      return c;
    }, (e: unknown) => {
      failAll(e); // not connected (the node down): the consumers come back to a new one
      throw e;
    }));

  /** PING on the subscriber connection: on its PONG, every live follower has every message published before it was sent. */
  const ping = async (): Promise<void> => {
    if (followers.size === 0) {
      if (ticker !== undefined) clearInterval(ticker);
      ticker = undefined;
    }
    if (pinging || conn === undefined || followers.size === 0) return;
    pinging = true;
    const sent = Date.now();
    // The channels subscribed before the PING: each is still subscribed at its PONG, unless Redis dropped it.
    const before = [...channels].filter(([, ch]) => ch.done);
    try {
      const c = await conn;
      await options.timed(c.ping());
      const held = subscribedOf(c);
      for (const [name, ch] of before) if (held !== undefined && !held.has(name) && channels.get(name) === ch) unsubscribed(name);
      for (const f of [...followers]) if (f.live) f.synced?.(sent);
    } catch (e) {
      failAll(e);
    } finally {
      pinging = false;
    }
  };

  /** Redis dropped a channel by itself (its slot moved): its consumers are routed again. */
  const unsubscribed = (name: string): void => {
    const ch = channels.get(name);
    if (ch === undefined) return;
    channels.delete(name);
    const err = options.failure(new Error(`MOVED (Redis unsubscribed ${name}: its slot moved)`));
    for (const x of [...ch.consumers]) x.fail(err);
  };

  const commands = subscriptionCommands({ connection, current: () => conn, timed: options.timed, slotOf: options.slotOf });

  /** `x` on the channel of `events`, subscribed (once per channel) when it is the first. */
  const attach = (events: string, x: Consumer): Promise<void> => {
    const name = liveChannel(events);
    let ch = channels.get(name);
    if (ch === undefined) {
      const subscribed = commands.subscribe(name).then(() => {
        made.done = true;
      });
      const made: Channel = (ch = { consumers: new Set(), subscribed, done: false });
      channels.set(name, made);
      subscribed.catch(() => undefined);
    }
    ch.consumers.add(x);
    if (idle !== undefined) clearTimeout(idle);
    idle = undefined;
    return ch.subscribed;
  };

  /** `x` off its channel: unsubscribed when it was the last there; the connection closes once idle for a while. */
  const detach = (events: string, x: Consumer): void => {
    const name = liveChannel(events);
    const ch = channels.get(name);
    if (ch === undefined || !ch.consumers.delete(x) || ch.consumers.size > 0) return;
    channels.delete(name);
    commands.unsubscribe(name);
    if (channels.size > 0 || retired) return;
    idle = setTimeout(() => {
      idle = undefined;
      if (channels.size === 0) retire();
    }, IDLE_MS);
    idle.unref?.(); // an idle connection does not keep the process alive
  };

  const tick = (): void => {
    if (ticker !== undefined || retired) return;
    ticker = setInterval(() => void ping(), SYNC_MS);
    ticker.unref?.();
  };

  const refused = (): Promise<never> => Promise.reject(closedError('failed and was retired'));

  return {
    retired: () => retired,

    wait(events, end, id, waitMs, signal) {
      if (signal?.aborted) return Promise.resolve(false);
      if (retired) return refused();
      return new Promise<boolean>((resolve, reject) => {
        let settled = false;
        const settle = (result: boolean | Error): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          detach(events, w);
          if (result instanceof Error) reject(result);
          else resolve(result);
        };
        const onAbort = (): void => settle(false);
        const after = parseId(id);
        const w: Consumer = {
          message: (entries, ended) => (ended || entries.some(([at]) => later(parseId(at), after))) && settle(true),
          fail: settle,
          close: () => settle(false),
        };
        const timer = setTimeout(() => settle(false), Math.max(0, waitMs));
        signal?.addEventListener('abort', onAbort, { once: true });
        // Subscribed first, then looked: what came before is found, what comes after is published to it.
        attach(events, w)
          .then(() => !settled && options.timed(options.peek(events, end, id)))
          .then(
            (found) => found === true && settle(true),
            (e: unknown) => settle(options.failure(e)),
          );
      });
    },

    follow(events, id, onEntries, onError, onSynced) {
      let stopped = false;
      let cursor = parseId(id);
      let held: StreamEntry[] | undefined = []; // messages that came during the catch-up; undefined once live
      const state = { live: false, synced: onSynced };
      /** The entries after the cursor, handed over (the cursor advanced). */
      const hand = (entries: StreamEntry[]): void => {
        let first = 0;
        while (first < entries.length && !later(parseId(entries[first]![0]), cursor)) first++;
        if (first >= entries.length || stopped) return;
        const mine = first === 0 ? entries : entries.slice(first);
        cursor = parseId(mine[mine.length - 1]![0]);
        onEntries(mine);
      };
      const f: Consumer = {
        message: (entries) => (held !== undefined ? void held.push(...entries) : hand(entries)),
        fail: (e) => {
          if (stopped) return;
          stopped = true;
          followers.delete(state);
          detach(events, f);
          onError(e);
        },
        close: () => void (stopped = true),
      };
      if (retired) {
        queueMicrotask(() => f.fail(closedError('failed and was retired')));
        return () => void (stopped = true);
      }
      const catchUp = async (): Promise<void> => {
        await attach(events, f);
        if (stopped) return;
        let at: number;
        for (;;) {
          at = Date.now();
          const entries = await options.timed(options.read(events, idText(cursor), COUNT));
          if (stopped) return;
          hand(entries);
          if (entries.length < COUNT) break;
        }
        const kept = held ?? [];
        held = undefined;
        hand(kept);
        if (stopped) return;
        state.live = true;
        followers.add(state);
        tick();
        onSynced?.(at);
      };
      catchUp().catch((e: unknown) => f.fail(options.failure(e)));
      return () => {
        if (stopped) return;
        stopped = true;
        followers.delete(state);
        detach(events, f);
      };
    },

    close() {
      for (const x of retire()) x.close();
    },
  };
}
