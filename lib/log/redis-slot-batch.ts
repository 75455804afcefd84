import { EventLogError } from '../errors.js';
import { eventLogErrorOf, unavailable } from './redis-connection.js';
import { groupBySlot } from './redis-slot.js';
import type { LogScope } from './types.js';

// Gathers the write path's calls of one turn (appends, acquires, renewals, releases of every stream) and hands
// them to one script call per batch: on a single Redis all of them (up to the batch's limits), on a Cluster
// those whose keys share a hash slot (a script may touch the keys of one slot only). Each stream still gets its
// own result, and one stream's failure fails it alone (`isolated`).

/** What one stream of a batch came to. */
export type Outcome<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

export const settle = <R>(p: Promise<R>): Promise<Outcome<R>> =>
  p.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );

export interface SlotBatcherOptions<T extends { readonly scope: LogScope }, R> {
  /** The hash slot of an item's keys on a Cluster; on a single Redis `undefined` (every item may share a call). */
  readonly slot: ((item: T) => number) | undefined;
  /** Adds what an item weighs (e.g. its events and bytes) to `totals`; a batch closes once any total reaches its `max`. */
  readonly cost: (item: T, totals: number[]) => void;
  readonly max: readonly number[];
  /** One batch (never empty, one slot), resolving with an outcome per item, in order. */
  readonly send: (batch: readonly T[]) => Promise<readonly Outcome<R>[]>;
  /** When the gathered calls go: setImmediate (the rest of the turn) unless said otherwise. */
  readonly soon?: (f: () => void) => void;
}

export interface SlotBatcher<T, R> {
  add(item: T): Promise<R>;
  /** Sends what waits now (before the log closes its connection). */
  flush(): void;
}

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (r: R) => void;
  readonly reject: (e: unknown) => void;
}

export function slotBatcher<T extends { readonly scope: LogScope }, R>(options: SlotBatcherOptions<T, R>): SlotBatcher<T, R> {
  const { slot, cost, max, send } = options;
  const soon = options.soon ?? setImmediate;
  let queue: Waiting<T, R>[] = [];
  let scheduled = false;

  const dispatch = (batch: Waiting<T, R>[]): void => {
    send(batch.map((w) => w.item)).then(
      (outcomes) => {
        batch.forEach((w, k) => {
          const o = outcomes[k];
          if (o === undefined) w.reject(new EventLogError('unavailable', 'Redis answered for fewer streams than the call carried', w.item.scope.responseId));
          else if (o.ok) w.resolve(o.value);
          else w.reject(o.error);
        });
      },
      (e: unknown) => {
        for (const w of batch) w.reject(e);
      },
    );
  };

  /** `items` (one group) cut into batches within `max`, each sent. */
  const cut = (items: Waiting<T, R>[]): void => {
    let batch: Waiting<T, R>[] = [];
    const totals = max.map(() => 0);
    for (const w of items) {
      batch.push(w);
      cost(w.item, totals);
      let full = false;
      for (let i = 0; i < max.length; i++) full ||= totals[i]! >= max[i]!;
      if (full) {
        dispatch(batch);
        batch = [];
        totals.fill(0);
      }
    }
    if (batch.length > 0) dispatch(batch);
  };

  const flush = (): void => {
    scheduled = false;
    if (queue.length === 0) return;
    const all = queue;
    queue = [];
    if (slot === undefined) return cut(all);
    for (const group of groupBySlot(all, (w) => slot(w.item))) cut(group);
  };

  return {
    add(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          soon(flush);
        }
      });
    },
    flush,
  };
}

/** An error said of `scope`'s response (a batch's error names none, or another one of the batch). */
export const asStreamError = (e: unknown, scope: LogScope): EventLogError =>
  e instanceof EventLogError ? (e.responseId === scope.responseId ? e : eventLogErrorOf(e, scope.responseId)) : unavailable(e, scope);

/**
 * A batch's outcomes, isolated: `many` runs the batch as one script call; when that call fails as a whole for
 * a reason other than Redis being unreachable (a script error midway, after it wrote the streams before the
 * failing one; a refusal), each stream is sent again on its own (`one`): the streams already written find their
 * writes stored (each script skips what is) and the failing one fails alone. Unreachable: every stream fails,
 * each naming its own response.
 */
export async function isolated<T extends { readonly scope: LogScope }, R>(
  batch: readonly T[],
  many: (batch: readonly T[]) => Promise<readonly Outcome<R>[]>,
  one: (item: T) => Promise<R>,
): Promise<readonly Outcome<R>[]> {
  if (batch.length === 1) return [await settle(one(batch[0]!))];
  try {
    return await many(batch);
  } catch (e) {
    if (e instanceof EventLogError && e.reason === 'unavailable') return batch.map((item) => ({ ok: false, error: asStreamError(e, item.scope) }));
    return Promise.all(batch.map((item) => settle(one(item))));
  }
}
