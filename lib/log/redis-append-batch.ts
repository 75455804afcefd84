import type { LogScope } from './types.js';

// Gathers the appends `redisEventLog` is asked for within one turn of the event loop (every stream's writer
// whose batch delay ended in that turn) and sends them as one script call: one round trip and one script
// run for all of them, instead of one per stream. Each append still gets its own result.

export interface PendingAppend {
  readonly scope: LogScope;
  readonly token: number;
  /** The events as APPEND's ARGV triples: sequence_number, '1' | '0' (terminal), JSON. */
  readonly args: readonly string[];
}

interface Waiting extends PendingAppend {
  readonly resolve: (r: string[]) => void;
  readonly reject: (e: unknown) => void;
}

/** Most events one call carries, and most bytes of JSON: a longer script blocks Redis longer. */
const MAX_EVENTS = 2000;
const MAX_BYTES = 1 << 20;

export interface AppendBatcher {
  /** Resolves with what APPEND returned for this stream. */
  add(scope: LogScope, token: number, args: readonly string[]): Promise<string[]>;
}

/**
 * `send` gets one batch (never empty) and resolves with APPEND's result for a batch of one, or with three
 * elements per stream for a longer batch (APPEND_MANY's).
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
        const a = all[j]!;
        events += a.args.length / 3;
        for (let k = 2; k < a.args.length; k += 3) bytes += a.args[k]!.length;
        j++;
      } while (j < all.length && events < MAX_EVENTS && bytes < MAX_BYTES);
      const batch = all.slice(i, j);
      i = j;
      send(batch).then(
        (r) => {
          if (batch.length === 1) return batch[0]!.resolve(r);
          batch.forEach((a, k) => a.resolve(r.slice(3 * k, 3 * k + 3)));
        },
        (e: unknown) => {
          for (const a of batch) a.reject(e);
        },
      );
    }
  };

  return {
    add(scope, token, args) {
      return new Promise<string[]>((resolve, reject) => {
        queue.push({ scope, token, args, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
