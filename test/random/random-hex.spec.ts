import { randomHex } from '../../lib/random-hex';

describe('randomHex', () => {
  it('answers 2 lower-case hex characters per byte', () => {
    for (const n of [1, 9, 16, 4096]) expect(randomHex(n)).toMatch(new RegExp(`^[0-9a-f]{${2 * n}}$`));
  });

  it('hands out no id twice across refills of its pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 3 * 256 + 7; i++) seen.add(randomHex(16)); // three pools and some
    expect(seen.size).toBe(3 * 256 + 7);
  });

  it('draws the bytes a pool at a time, and never reuses a byte of a pool', () => {
    const real = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
    const pools: Uint8Array[] = [];
    const spy = jest.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation(<T extends ArrayBufferView | null>(a: T): T => {
      const filled = real(a as unknown as Uint8Array);
      pools.push(filled);
      return a;
    });
    try {
      randomHex(4096); // whatever was left: a fresh pool holds it whole
      const hex = Array.from({ length: 300 }, () => randomHex(16)).join('');
      // 300 ids of 16 bytes need 4800 bytes: the pool after the first, then one more.
      expect(pools).toHaveLength(3);
      const expected = Buffer.concat([pools[1]!, pools[2]!.subarray(0, 4800 - 4096)]).toString('hex');
      expect(hex).toBe(expected);
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses a size it cannot give, naming it', () => {
    for (const n of [0, -1, 4097, 1.5, Number.NaN]) expect(() => randomHex(n)).toThrow(new RangeError(`randomHex takes 1 to 4096 bytes, not ${n}`));
  });
});
