import type { Redis } from 'ioredis';
import { groupBySlot } from './redis-slot.js';

// The SSUBSCRIBEs and SUNSUBSCRIBEs a live subscriber connection (lib/log/redis-cluster-live.ts) is asked for in
// one turn of the event loop (promise callbacks included: setImmediate, as the log's writes) go together, in the
// order asked: one command per run of one kind (per slot on a Cluster node: a shard
// channel command may name channels of one slot only, CROSSSLOT), all of them in one write to the socket. A
// thousand readers ending together were a thousand writes to the socket, each a system call for this process
// and a read and a reply for Redis (docs/performance.md, the durable log's sixteenth round).

export interface SubscriptionCommandsOptions {
  /** The connection, opened when there is none. */
  readonly connection: () => Promise<Redis>;
  /** The connection when there is one: an unsubscribe opens none (where it was subscribed is gone, and so is the subscription). */
  readonly current: () => Promise<Redis> | undefined;
  /** `p`, or a rejection after the log's command timeout. */
  readonly timed: <T>(p: Promise<T>) => Promise<T>;
  /** A channel's hash slot on a Cluster node; `undefined` on a single Redis, where one command names them all. */
  readonly slotOf?: (channel: string) => number;
}

export interface SubscriptionCommands {
  /** SSUBSCRIBEs `channel` after this turn; settles with its answer. */
  subscribe(channel: string): Promise<void>;
  /** SUNSUBSCRIBEs `channel` after this turn, when there is a connection (its answer is not awaited). */
  unsubscribe(channel: string): void;
}

/** A subscribe (told how it went) or an unsubscribe (no `answered`) waiting for the turn to end. */
interface Op {
  readonly channel: string;
  readonly answered?: { readonly ok: () => void; readonly fail: (e: unknown) => void };
}

const isSubscribe = (op: Op): boolean => op.answered !== undefined;

export function subscriptionCommands(options: SubscriptionCommandsOptions): SubscriptionCommands {
  const { connection, current, timed, slotOf } = options;
  let ops: Op[] = [];

  /** `run` as the commands it takes: one, or one per slot on a Cluster node (in the order of their first channel). */
  const commandsOf = (run: Op[]): Op[][] => (slotOf === undefined ? [run] : groupBySlot(run, (op) => slotOf(op.channel)));

  const send = (redis: Redis, todo: Op[]): void => {
    // Corked: the commands (one per slot on a Cluster node: as many as the streams) leave in one write.
    const socket = redis.stream as Partial<Pick<Redis['stream'], 'cork' | 'uncork'>> | undefined;
    socket?.cork?.();
    try {
      sendAll(redis, todo);
    } finally {
      socket?.uncork?.();
    }
  };

  const sendAll = (redis: Redis, todo: Op[]): void => {
    for (let at = 0; at < todo.length; ) {
      const subscribing = isSubscribe(todo[at]!);
      let end = at + 1;
      while (end < todo.length && isSubscribe(todo[end]!) === subscribing) end++;
      for (const group of commandsOf(todo.slice(at, end))) {
        const channels = group.map((op) => op.channel);
        const answer = subscribing ? timed(redis.ssubscribe(...channels)) : redis.sunsubscribe(...channels);
        answer.then(
          () => {
            for (const op of group) op.answered?.ok();
          },
          (e: unknown) => {
            for (const op of group) op.answered?.fail(e);
          },
        );
      }
      at = end;
    }
  };

  const flush = (): void => {
    const todo = ops;
    ops = [];
    const c = todo.some(isSubscribe) ? connection() : current();
    c?.then(
      (redis) => send(redis, todo),
      (e: unknown) => {
        for (const op of todo) op.answered?.fail(e);
      },
    );
  };

  const queue = (op: Op): void => {
    if (ops.length === 0) setImmediate(flush);
    ops.push(op);
  };

  return {
    subscribe: (channel) => new Promise<void>((ok, fail) => queue({ channel, answered: { ok, fail } })),
    unsubscribe(channel) {
      if (current() !== undefined) queue({ channel });
    },
  };
}
