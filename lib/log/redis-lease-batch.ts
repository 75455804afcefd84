import { streamFailure } from './redis-corrupt.js';
import type { SendScript } from './redis-script-send.js';
import { isolated, type Outcome } from './redis-slot-batch.js';
import type { LogScope } from './types.js';

// The lease calls of many streams in one script call (lib/log/redis-lease-scripts.ts). When 1,000 streams
// start (or end, or renew) within the same few milliseconds, 1,000 separate ACQUIRE calls queue in Redis ahead
// of the streams' first appends (measured: acquires of 33-125 ms, the first appends waiting behind them); one
// call per turn (per hash slot on a Cluster) carries them all, and each stream gets its own three reply elements.

/** One stream's part of a lease call: its keys and its arguments (after the call's head). */
export interface LeaseCall {
  readonly scope: LogScope;
  /** The stream's meta, events and end keys. */
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
}

/** Most streams one call carries: a script blocks Redis while it runs (1,000 acquires: about 8 ms of Redis). */
export const MAX_STREAMS = 250;

/**
 * Sends a batch of one kind of lease call (`script`, its arguments `head` then each stream's), resolving with
 * each stream's three reply elements, or its own failure. `durable`: confirmed by the log's replicas (acquires).
 */
export function leaseSender(
  send: SendScript,
  script: string,
  head: readonly (string | number)[],
  durable: boolean,
): (batch: readonly LeaseCall[]) => Promise<readonly Outcome<string[]>[]> {
  const call = async (batch: readonly LeaseCall[]): Promise<string[][]> => {
    const keys: string[] = [];
    const args: (string | number)[] = [...head];
    for (const b of batch) {
      keys.push(b.keys[0]!, b.keys[1]!, b.keys[2]!);
      for (const a of b.args) args.push(a);
    }
    const r = (await send({ script, keys, args, durable }, batch[0]!.scope)) as string[];
    if (r.length !== 3 * batch.length) throw new Error(`a lease script answered ${r.length} elements for ${batch.length} streams`);
    return batch.map((_, k) => r.slice(3 * k, 3 * k + 3));
  };
  return (batch) =>
    isolated(
      batch,
      async (all) => (await call(all)).map((value) => ({ ok: true as const, value })),
      async (one) => {
        try {
          return (await call([one]))[0]!;
        } catch (e) {
          throw streamFailure(e, one.scope, one.keys, script);
        }
      },
    );
}
