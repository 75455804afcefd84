import type { LogScope } from './types.js';

// Gathers the appends `redisEventLog` is asked for within one turn of the event loop (every stream's writer
// whose batch delay ended in that turn) and sends them as one script call: one round trip and one script
// run for all of them, instead of one per stream. Each append still gets its own result.

export interface PendingAppend {
  readonly scope: LogScope;
  readonly token: number;
  /** The events' sequence numbers as the APPEND script takes them ('4,5,6t'). */
  readonly seqs: string;
  /** Their JSON, to be joined by '\n' (once, for the whole call). */
  readonly jsons: readonly string[];
  /** The length of their JSON. */
  readonly bytes: number;
}

interface Waiting {
  readonly append: PendingAppend;
  readonly resolve: (r: string[]) => void;
  readonly reject: (e: unknown) => void;
}

/** Most events one call carries, and most bytes of JSON: a longer script blocks Redis longer. */
const MAX_EVENTS = 2000;
const MAX_BYTES = 1 << 20;

export interface AppendBatcher {
  /** Resolves with what APPEND returned for this stream. */
  add(append: PendingAppend): Promise<string[]>;
}

const OK: readonly string[] = ['ok'];

/**
 * `send` gets one batch (never empty) and resolves with APPEND's result for a batch of one, or, for a longer
 * batch, with APPEND_MANY's: four elements for each append that failed (its position from 1, then APPEND's).
 */
export function appendBatcher(send: (batch: readonly PendingAppend[]) => Promise<string[]>): AppendBatcher {
  let queue: Waiting[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const all = queue;
    queue = [];
    for (let i = 0; i < all.length; ) {
      let events = 0;
      let bytes = 0;
      let j = i;
      do {
        const a = all[j]!.append;
        events += a.jsons.length;
        bytes += a.bytes;
        j++;
      } while (j < all.length && events < MAX_EVENTS && bytes < MAX_BYTES);
      const batch = all.slice(i, j);
      i = j;
      send(batch.map((w) => w.append)).then(
        (r) => {
          if (batch.length === 1) return batch[0]!.resolve(r);
          // APPEND_MANY answers only for the appends that failed: position (from 1), then APPEND's reply.
          const failed = new Map<number, string[]>();
          for (let k = 0; k + 3 < r.length; k += 4) failed.set(Number(r[k]) - 1, r.slice(k + 1, k + 4));
          batch.forEach((a, k) => a.resolve(failed.get(k) ?? (OK as string[])));
        },
        (e: unknown) => {
          for (const a of batch) a.reject(e);
        },
      );
    }
  };

  return {
    add(append) {
      return new Promise<string[]>((resolve, reject) => {
        queue.push({ append, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
