// Redis Cluster's key → slot mapping (lib/log/redis-slot.ts). The expected slots are what `CLUSTER KEYSLOT`
// answered for these keys on Debian's redis-server 7 (checked once by hand; the cluster suite checks the log's keys live).
import { groupBySlot, slotOf, tagForSlot } from '../../lib/log/redis-slot';

test.each([
  ['a', 15495],
  ['foo', 12182],
  ['{user1000}.following', 3443],
  ['{user1000}.followers', 3443],
  ['x{}y', 16116],
  ['p{a}{b}', 15495],
  ['é€', 934],
])('slotOf(%j) is %i, as CLUSTER KEYSLOT says', (key, slot) => {
  expect(slotOf(key)).toBe(slot);
});

test('tagForSlot finds a hash tag for any slot', () => {
  for (const slot of [0, 1, 1234, 8191, 16383]) expect(slotOf(`x{${tagForSlot(slot)}}y`)).toBe(slot);
});

test('groupBySlot: one group per slot, items in their order, groups in the order of their first item', () => {
  const keys = ['{a}1', '{b}1', '{a}2', 'c', '{b}2', '{a}3'];
  expect(groupBySlot(keys, slotOf)).toEqual([['{a}1', '{a}2', '{a}3'], ['{b}1', '{b}2'], ['c']]);
  expect(groupBySlot([], slotOf)).toEqual([]);
});
