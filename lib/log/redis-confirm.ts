import type { SendScript } from './redis-script-send.js';
import { CONFIRM } from './redis-scripts.js';
import { type Outcome, type SlotBatcher, slotBatcher } from './redis-slot-batch.js';
import type { LogScope } from './types.js';

// With `replicas` ≥ 1, an append's events count as durable once its WAIT confirmed them; readers must not hand
// over an event its master's death could still take away. So once an append is confirmed, the producer marks
// it (CONFIRM in lib/log/redis-scripts.ts: meta `durable`, a `c` entry on the events stream, published on a
// Cluster), WAITs for that mark too (else a final batch's mark could be lost and readers would never hand over
// its terminal event), and only then counts the append as done. The confirmations of one turn share a call
// per slot, like the appends.

export interface PendingConfirm {
  readonly scope: LogScope;
  /** The stream's meta, events and end keys. */
  readonly keys: readonly string[];
  /** The highest sequence number the append stored (or found stored). */
  readonly seq: number;
}

/** Most streams one CONFIRM call carries. */
const MAX_STREAMS = 1000;
const DONE: Outcome<void> = { ok: true, value: undefined };

/** `live` (a Cluster): publish the marks too; `slot`: the hash slot of an item on a Cluster, else undefined. */
export function confirmBatcher(send: SendScript, live: boolean, slot: ((c: PendingConfirm) => number) | undefined): SlotBatcher<PendingConfirm, void> {
  return slotBatcher<PendingConfirm, void>({
    slot,
    cost: (_, totals) => void (totals[0]! += 1),
    max: [MAX_STREAMS],
    send: async (batch) => {
      const keys: string[] = [];
      const args: (string | number)[] = [live ? '1' : '0'];
      for (const c of batch) {
        keys.push(c.keys[0]!, c.keys[1]!, c.keys[2]!);
        args.push(c.seq);
      }
      // durable: WAIT replicas after it, tried again (a no-op then, but for the WAIT) until they confirm.
      await send({ script: CONFIRM, keys, args, durable: true }, batch[0]!.scope);
      return batch.map(() => DONE);
    },
  });
}
