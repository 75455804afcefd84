import type { Cluster, Redis } from 'ioredis';
import { masterOfSlot, slotOf } from './redis-slot.js';
import { type RedisTail, redisTail } from './redis-tail.js';

// The tail multiplexer (lib/log/redis-tail.ts) on a Redis Cluster. A Cluster refuses any command whose keys
// are in different hash slots (CROSSSLOT), even when one node serves them all: one XREAD can only name the
// streams of one slot. So the multiplexer runs once per slot that has streams tailed, each with a blocking
// connection of its own straight to the master serving that slot (a plain connection that fails fast, with
// the Cluster's redisOptions: not a duplicate of the Cluster), shared by every `wait` and `follow` of that
// slot's streams, and a wake stream in that slot (XADDed through the Cluster client). A tail that fails is
// retired at once (its consumers ride through on top, lib/log/redis-tail-retry.ts, and come back to a new
// one, on the master serving the slot then); one nobody used for a while closes its connection.

/** How long a slot's tail keeps its connection after its last consumer left (the next reader of the slot reuses it). */
const IDLE_MS = 5000;
/** How long a wake stream outlives its last wake (as on a single Redis; a retired tail deletes its own). */
const WAKE_TTL_MS = 10_000;

export interface ClusterTailOptions {
  readonly keyPrefix: string;
  readonly timeoutMs: number;
  /** A new, connected connection to the node at `host:port` that fails fast (no reconnect, no queue). */
  readonly connect: (node: string) => Promise<Redis>;
  /** `p`, or a rejection after `ms`. */
  readonly timed: <T>(p: Promise<T>, ms?: number) => Promise<T>;
  /** The error a consumer gets when Redis fails. */
  readonly failure: (e: unknown) => Error;
  readonly isRefusal: (e: unknown) => boolean;
}

export interface ClusterTails {
  /**
   * The tail of `events`'s slot, on the master serving it as the Cluster last saw it; `refresh` (after a
   * failure): the Cluster's slot map is asked for again first.
   */
  tail(events: string, refresh: boolean): Promise<RedisTail>;
  close(): void;
}

interface SlotTail {
  readonly slot: number;
  readonly tail: RedisTail;
  readonly wakeKey: string;
  woke: boolean;
  users: number;
  retired: boolean;
  idle: ReturnType<typeof setTimeout> | undefined;
}

/** What a consumer of a retired tail gets: a transient failure (isTransient), so it is routed again. */
const retiredError = (): Error => new Error('Connection is closed (the tail of this slot failed and was retired)');

/** The hash tag of a stream key (`<prefix>{owner:id}:events`): a wake stream under it is in the stream's slot. */
const tagOf = (key: string): string => {
  const open = key.indexOf('{');
  const close = key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
};

export function clusterTails(cluster: Cluster, options: ClusterTailOptions): ClusterTails {
  const bySlot = new Map<number, SlotTail>();
  let closed = false;
  /** A lazy Cluster client's first connect, shared (a second `connect()` would fail: already connecting). */
  let connecting: Promise<void> | undefined;

  const refreshSlots = (): Promise<void> =>
    new Promise<void>((resolve, reject) => cluster.refreshSlotsCache((e?: Error | null) => (e ? reject(e) : resolve())));

  /** The master serving `slot`: asked of the Cluster when it does not know it yet (a lazy client not connected) or `refresh`. */
  const nodeOf = async (slot: number, refresh: boolean): Promise<string> => {
    let node = refresh ? undefined : masterOfSlot(cluster, slot);
    if (node !== undefined) return node;
    if (cluster.status === 'wait') connecting ??= cluster.connect().finally(() => (connecting = undefined));
    await options.timed(connecting ?? refreshSlots());
    node = masterOfSlot(cluster, slot);
    if (node === undefined) throw new Error(`Cluster isn't ready: no master serves slot ${slot}`);
    return node;
  };

  const dispose = (s: SlotTail): void => {
    if (s.idle !== undefined) clearTimeout(s.idle);
    s.idle = undefined;
    s.tail.close();
    // Deleted now rather than after its TTL (PEXPIRE 0: no DEL for the ACL user to be granted).
    if (s.woke) cluster.pexpire(s.wakeKey, 0).catch(() => undefined);
  };

  /** Taken out of use (failed, idle, closing): the next consumer of the slot gets a new tail. */
  const retire = (s: SlotTail): void => {
    if (s.retired) return;
    s.retired = true;
    if (bySlot.get(s.slot) === s) bySlot.delete(s.slot);
  };

  const use = (s: SlotTail): void => {
    s.users++;
    if (s.idle !== undefined) clearTimeout(s.idle);
    s.idle = undefined;
  };
  const leave = (s: SlotTail): void => {
    if (--s.users > 0 || s.retired) return;
    s.idle = setTimeout(() => {
      s.idle = undefined;
      if (s.users > 0 || s.retired) return;
      retire(s);
      dispose(s);
    }, IDLE_MS);
    s.idle.unref?.(); // an idle tail does not keep the process alive
  };

  const open = (slot: number, node: string, events: string): SlotTail => {
    const wakeKey = `${options.keyPrefix}tail:{${tagOf(events)}}:${Date.now().toString(36)}${Math.random().toString(36).slice(2)}`;
    const s: SlotTail = {
      slot,
      wakeKey,
      woke: false,
      users: 0,
      retired: false,
      idle: undefined,
      tail: redisTail({
        connect: () => options.connect(node),
        wakeKey,
        wake: () => {
          s.woke = true;
          return options.timed(Promise.all([cluster.xadd(wakeKey, 'MAXLEN', '1', '*', 'w', '1'), cluster.pexpire(wakeKey, WAKE_TTL_MS)]));
        },
        isRefusal: options.isRefusal,
        timed: (p, ms) => options.timed(p, ms),
        failure: options.failure,
        timeoutMs: options.timeoutMs,
        // Told before its consumers are: none of them (routed again) may come back to it.
        onFail: () => {
          retire(s);
          queueMicrotask(() => dispose(s));
        },
      }),
    };
    bySlot.set(slot, s);
    return s;
  };

  /** What the consumers of one slot see: its tail, counting them (to close it once idle), refusing once it is retired. */
  const facade = (s: SlotTail): RedisTail => ({
    wait(events, end, id, waitMs, signal) {
      if (s.retired) return Promise.reject(retiredError());
      use(s);
      return s.tail.wait(events, end, id, waitMs, signal).finally(() => leave(s));
    },
    follow(events, id, onEntries, onError, onSynced) {
      if (s.retired) {
        queueMicrotask(() => onError(retiredError()));
        return () => undefined;
      }
      use(s);
      let left = false;
      const done = (): void => {
        if (left) return;
        left = true;
        leave(s);
      };
      const unfollow = s.tail.follow(
        events,
        id,
        onEntries,
        (e) => {
          done();
          onError(e);
        },
        onSynced,
      );
      return () => {
        done();
        unfollow();
      };
    },
    close: () => undefined,
  });

  return {
    async tail(events, refresh) {
      if (closed) throw new Error('the log is closed');
      const slot = slotOf(events);
      const known = bySlot.get(slot);
      if (known !== undefined && !refresh) return facade(known);
      const node = await nodeOf(slot, refresh);
      if (closed) throw new Error('the log is closed');
      return facade(bySlot.get(slot) ?? open(slot, node, events));
    },

    close() {
      if (closed) return;
      closed = true;
      for (const s of [...bySlot.values()]) {
        retire(s);
        dispose(s);
      }
    },
  };
}
