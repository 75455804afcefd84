// outputText's cost per event does not depend on the order the parts' indexes come in: counted as the nodes
// of its ordered text (OrderedText) each event touches, never timed.
import fc from 'fast-check';
import { from, lastValueFrom } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { OrderedText } from '../../operators/internal/ordered-text';
import { outputText } from '../../operators/outputText';
import * as ev from './events';

describe('OrderedText (outputText\'s parts in output order)', () => {
  test('full is the concatenation of the parts in (output_index, content_index) order after any sequence of writes', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(40), fc.nat(3), fc.string({ maxLength: 3 }), fc.boolean()), { maxLength: 300 }), (ops) => {
        const t = new OrderedText();
        const ref = new Map<string, [number, number, string]>();
        let lastKey: string | undefined;
        for (const [oi0, ci, s, again] of ops) {
          // Often the part written last again, as streaming does (the fast path).
          const [oi, c] = again && lastKey !== undefined ? ref.get(lastKey)!.slice(0, 2) as [number, number] : [oi0, ci];
          const key = `${oi}:${c}`;
          const text = (t.get(oi, c) ?? '') + s;
          t.set(oi, c, text);
          ref.set(key, [oi, c, text]);
          lastKey = key;
          const want = [...ref.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]).map((x) => x[2]).join('');
          expect(t.full).toBe(want);
          expect(t.get(oi, c)).toBe(text);
        }
      }),
      { numRuns: 100 },
    );
  });
});

/** n one-part messages opened in `order`, each given a delta and a `.done` that corrects it. */
function parts(order: readonly number[]): ResponseStreamEvent[] {
  const out: ResponseStreamEvent[] = [ev.created()];
  for (const oi of order) out.push(ev.itemAdded(oi, ev.msg(`m${oi}`)), ev.partAdded(`m${oi}`, oi, 0), ev.textDelta(`m${oi}`, oi, 0, `<${oi}`), ev.textDone(`m${oi}`, oi, 0, `<${oi}>`));
  out.push(ev.completed());
  return out;
}

/** The most nodes any one write touched, over a run of outputText on `events`. */
async function maxWork(events: ResponseStreamEvent[]): Promise<{ max: number; writes: number; text: string }> {
  const set = OrderedText.prototype.set;
  let max = 0;
  let writes = 0;
  const spy = jest.spyOn(OrderedText.prototype, 'set').mockImplementation(function (this: OrderedText, oi: number, ci: number, text: string) {
    const before = this.work;
    set.call(this, oi, ci, text);
    max = Math.max(max, this.work - before);
    writes++;
  });
  try {
    const text = await lastValueFrom(from(events).pipe(outputText()));
    return { max, writes, text };
  } finally {
    spy.mockRestore();
  }
}

describe('outputText: the cost of an event whatever the order of the indexes', () => {
  const n = 2048;
  const ascending = Array.from({ length: n }, (_, i) => i);
  // A fixed shuffle (no randomness in a test's outcome).
  const shuffled = ascending.map((i) => [(i * 7919) % n, i] as const).sort((a, b) => a[0] - b[0]).map(([, i]) => i);
  const orders: Array<[string, number[]]> = [
    ['ascending', ascending],
    ['descending', [...ascending].reverse()],
    ['shuffled', shuffled],
    ['from both ends', ascending.map((i) => (i % 2 === 0 ? i / 2 : n - 1 - (i - 1) / 2))],
  ];
  // An AVL tree of n nodes is at most 1.44·log2(n) high; a write walks a handful of root paths.
  const bound = 6 * (Math.log2(n) + 1);

  test.each(orders)('%s: every write touches O(log n) nodes, and the text is in output order', async (_, order) => {
    const { max, writes, text } = await maxWork(parts(order));
    expect(writes).toBe(2 * n); // a delta and a correcting .done per part
    expect(max).toBeLessThanOrEqual(bound);
    expect(text).toBe(ascending.map((i) => `<${i}>`).join(''));
  });

  test('deltas on the part that opened last touch one node each', async () => {
    const events: ResponseStreamEvent[] = [ev.created(), ev.itemAdded(0, ev.msg('a')), ev.textDelta('a', 0, 0, 'x'), ev.itemAdded(1, ev.msg('b'))];
    for (let i = 0; i < 1000; i++) events.push(ev.textDelta('b', 1, 0, 'y'));
    const set = OrderedText.prototype.set;
    const works: number[] = [];
    const spy = jest.spyOn(OrderedText.prototype, 'set').mockImplementation(function (this: OrderedText, oi: number, ci: number, text: string) {
      const before = this.work;
      set.call(this, oi, ci, text);
      works.push(this.work - before);
    });
    try {
      await lastValueFrom(from(events).pipe(outputText()));
    } finally {
      spy.mockRestore();
    }
    expect(works.slice(3)).toEqual(works.slice(3).map(() => 1));
  });
});
