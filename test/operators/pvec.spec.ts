import fc from 'fast-check';
import { PVec } from '../../operators/internal/pvec.js';

describe('PVec (the persistent vector behind accumulateResponse)', () => {
  test('set / push / insert agree with a copied array, and every earlier version keeps its elements', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(3), fc.nat(5000)), { maxLength: 3000 }), (ops) => {
        let v = PVec.empty<number>();
        let a: number[] = [];
        const versions: Array<[PVec<number>, number[]]> = [];
        ops.forEach(([op, x], step) => {
          if (op === 0 || a.length === 0) {
            v = v.push(step);
            a = [...a, step];
          } else if (op === 3) {
            const i = x % (a.length + 1);
            v = v.insert(i, step);
            a = [...a.slice(0, i), step, ...a.slice(i)];
          } else {
            const i = x % a.length;
            v = v.set(i, step);
            a = a.slice();
            a[i] = step;
          }
          if (step % 97 === 0) versions.push([v, a]);
        });
        expect(v.toArray()).toEqual(a);
        expect(v.size).toBe(a.length);
        for (const [old, arr] of versions) expect(old.toArray()).toEqual(arr);
        if (a.length > 0) expect(v.get(a.length - 1)).toBe(a[a.length - 1]);
      }),
      { numRuns: 30 },
    );
  });

  test('from() of any length round-trips', () => {
    for (const n of [0, 1, 31, 32, 33, 1024, 1025, 32 * 32 * 32 + 5]) {
      const a = Array.from({ length: n }, (_, i) => i);
      const v = PVec.from(a);
      expect(v.toArray()).toEqual(a);
      expect(v.push(-1).toArray()).toEqual([...a, -1]);
    }
  });
});
