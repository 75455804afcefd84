import { createHash } from 'node:crypto';
import { hexOf } from '../../lib/hex';
import { shaOf } from '../../lib/log/redis-run-script';

test('hexOf writes every byte as two lower-case hex digits, over the range asked', () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  expect(hexOf(all)).toBe(Buffer.from(all).toString('hex'));
  expect(hexOf(all, 10, 20)).toBe(Buffer.from(all.subarray(10, 20)).toString('hex'));
  expect(hexOf(all, 5, 5)).toBe('');
});

test("a script's SHA-1 is the one Redis names it by (EVALSHA)", async () => {
  const script = "return redis.call('GET', KEYS[1]) -- é";
  expect(await shaOf(script)).toBe(createHash('sha1').update(script, 'utf8').digest('hex'));
});
