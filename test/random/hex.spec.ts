import { createHash } from 'node:crypto';
import { hexOf } from '../../lib/hex';
import fc from 'fast-check';
import { portableSha1Hex, sha1Hex } from '../../lib/sha1';

test('hexOf writes every byte as two lower-case hex digits, over the range asked', () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  expect(hexOf(all)).toBe(Buffer.from(all).toString('hex'));
  expect(hexOf(all, 10, 20)).toBe(Buffer.from(all.subarray(10, 20)).toString('hex'));
  expect(hexOf(all, 5, 5)).toBe('');
});

const sha1 = (s: string): string => createHash('sha1').update(s, 'utf8').digest('hex');

test.each([
  ['sha1Hex', sha1Hex],
  ['portableSha1Hex (browsers, Node before 20.16)', portableSha1Hex],
])("%s: a script's SHA-1 is the one Redis names it by (EVALSHA)", (_, f) => {
  expect(f('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d'); // FIPS 180-2, appendix A
  const script = "return redis.call('GET', KEYS[1]) -- é";
  expect(f(script)).toBe(sha1(script));
});

test('portableSha1Hex is SHA-1 of the UTF-8 bytes at every length around a block edge, and for any text', () => {
  // The padding's cases: the length fits the last block (55 bytes), just does not (56), a whole block (64).
  for (let len = 0; len <= 200; len++) expect(portableSha1Hex('x'.repeat(len))).toBe(sha1('x'.repeat(len)));
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => portableSha1Hex(s) === sha1(s)));
});
