import { coarseTimeout } from '../../lib/coarse-timer';

// On jest's fake clock (Date.now and setTimeout together), so that "when" is exact.
beforeEach(() => {
  jest.useFakeTimers();
  jest.setSystemTime(1_000);
});
afterEach(() => jest.useRealTimers());

test('fires at least ms from now, at the next multiple of the grain', () => {
  const fire = jest.fn();
  coarseTimeout(fire, 10, 64); // 1,010 rounded up: 1,024
  jest.advanceTimersByTime(23);
  expect(fire).not.toHaveBeenCalled();
  jest.advanceTimersByTime(1);
  expect(fire).toHaveBeenCalledTimes(1);
  expect(Date.now()).toBe(1_024);
});

test('never early, and less than a grain late, whatever the delay and the grain', () => {
  let seed = 7;
  const random = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < 200; i++) {
    const ms = 1 + Math.floor(random() * 3000);
    const grain = 1 + Math.floor(random() * 200);
    const set = Date.now();
    let firedAt = -1;
    coarseTimeout(() => (firedAt = Date.now()), ms, grain);
    jest.advanceTimersByTime(ms + grain);
    expect({ ms, grain, late: firedAt - set - ms >= 0 && firedAt - set - ms < grain }).toEqual({ ms, grain, late: true });
    jest.advanceTimersByTime(Math.floor(random() * 50)); // the next one starts elsewhere in a grain
  }
});

test('timers due in the same slice share one Node timer and fire in one turn, in the order they were set', () => {
  const order: string[] = [];
  coarseTimeout(() => order.push('a'), 100, 64); // 1,100 → 1,152
  coarseTimeout(() => order.push('b'), 90, 64); // 1,090 → 1,152
  coarseTimeout(() => order.push('c'), 140, 64); // 1,140 → 1,152
  coarseTimeout(() => order.push('d'), 160, 64); // 1,160 → 1,216: another
  expect(jest.getTimerCount()).toBe(2);
  jest.advanceTimersByTime(152);
  expect(order).toEqual(['a', 'b', 'c']);
  jest.advanceTimersByTime(64);
  expect(order).toEqual(['a', 'b', 'c', 'd']);
  expect(jest.getTimerCount()).toBe(0);
});

test('a cancelled timer does not fire; the last one cancelled in a slice clears its Node timer', () => {
  const a = jest.fn();
  const b = jest.fn();
  const cancelA = coarseTimeout(a, 100, 64);
  const cancelB = coarseTimeout(b, 100, 64);
  cancelA();
  expect(jest.getTimerCount()).toBe(1);
  cancelB();
  expect(jest.getTimerCount()).toBe(0);
  jest.advanceTimersByTime(1_000);
  expect(a).not.toHaveBeenCalled();
  expect(b).not.toHaveBeenCalled();
  cancelA(); // again, and after its slice is gone: nothing
  const c = jest.fn();
  coarseTimeout(c, 100, 64); // a new slice at the same instant works as a fresh one
  jest.advanceTimersByTime(200);
  expect(c).toHaveBeenCalledTimes(1);
});

test('one cancelled by another of its slice as that one fires does not fire', () => {
  const b = jest.fn();
  let cancelB = (): void => undefined;
  coarseTimeout(() => cancelB(), 100, 64);
  cancelB = coarseTimeout(b, 100, 64);
  jest.advanceTimersByTime(200);
  expect(b).not.toHaveBeenCalled();
});

test('one that throws does not keep the others of its slice from firing; its error is thrown after them', () => {
  const c = jest.fn();
  coarseTimeout(() => {
    throw new Error('boom');
  }, 100, 64);
  coarseTimeout(c, 100, 64);
  expect(() => jest.advanceTimersByTime(200)).toThrow('boom');
  expect(c).toHaveBeenCalledTimes(1);
});

test('a timer set from a firing one gets a slice of its own and fires; a delay under 1 ms counts as 1', () => {
  const later = jest.fn();
  coarseTimeout(() => coarseTimeout(later, 0, 64), 100, 64); // fires at 1,152; sets one for 1,153 → 1,216
  jest.advanceTimersByTime(215);
  expect(later).not.toHaveBeenCalled();
  jest.advanceTimersByTime(1);
  expect(later).toHaveBeenCalledTimes(1);
});
