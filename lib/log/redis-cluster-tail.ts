import type { Cluster, Redis } from 'ioredis';
import { type NodeLive, nodeLive } from './redis-cluster-live.js';
import { masterOfSlot, slotOf } from './redis-slot.js';
import type { RedisTail } from './redis-tail.js';

// Live reading (`wait`, `follow`) on a Redis Cluster: grouped per master node, ONE subscriber connection to
// each node this process reads from (lib/log/redis-cluster-live.ts), however many streams and slots it reads
// there. A stream's consumers go to the node serving its slot as the Cluster last saw it; after a failure
// (they ride through it on top, lib/log/redis-tail-retry.ts) the slot map is asked for again first, and a
// node whose connection failed is replaced by a new one.

export interface ClusterTailOptions {
  /** A new, connected connection to the node at `host:port` that fails fast (no reconnect, no queue). */
  readonly connect: (node: string) => Promise<Redis>;
  /** `p`, or a rejection after the log's command timeout. */
  readonly timed: <T>(p: Promise<T>) => Promise<T>;
  /** The error a consumer gets when Redis fails. */
  readonly failure: (e: unknown) => Error;
}

export interface ClusterTails {
  /**
   * The live reader of the node serving `events`'s slot, as the Cluster last saw it; `refresh` (after a
   * failure): the Cluster's slot map is asked for again first.
   */
  tail(events: string, refresh: boolean): Promise<RedisTail>;
  close(): void;
}

export function clusterTails(cluster: Cluster, options: ClusterTailOptions): ClusterTails {
  const byNode = new Map<string, NodeLive>();
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

  const open = (node: string): NodeLive => {
    const live: NodeLive = nodeLive({
      connect: () => options.connect(node),
      read: (events, id, count) => cluster.xrange(events, `(${id}`, '+', 'COUNT', count),
      peek: async (events, end, id) => {
        const got = await cluster.xread('COUNT', 1, 'STREAMS', events, end, id, '0-0');
        return got !== null && got.length > 0;
      },
      timed: options.timed,
      failure: options.failure,
      onRetire: () => {
        if (byNode.get(node) === live) byNode.delete(node);
      },
      slotOf,
    });
    byNode.set(node, live);
    return live;
  };

  return {
    async tail(events, refresh) {
      if (closed) throw new Error('the log is closed');
      const node = await nodeOf(slotOf(events), refresh);
      if (closed) throw new Error('the log is closed');
      const known = byNode.get(node);
      return known !== undefined && !known.retired() ? known : open(node);
    },

    close() {
      if (closed) return;
      closed = true;
      for (const live of [...byNode.values()]) live.close();
      byNode.clear();
    },
  };
}
