import { asyncScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { renewEvery } from '../../lib/log/renewal-clock';
import { marbleScheduler } from '../helpers/marbles';

/** A writer that notes the virtual time of each renewal. */
const writer = (s: TestScheduler, times: number[]) => ({ renew: () => void times.push(s.now()) });

/**
 * Writers joining at the virtual times `joins` (in that order of scheduling), renewed every `period`, all leaving at
 * `leaveAt`: each one's renewal times. `at`: checks run at given times meanwhile.
 */
function renewals(period: number, joins: readonly number[], leaveAt: number, at: readonly [number, (s: TestScheduler) => void][] = []): number[][] {
  const s = marbleScheduler();
  const times = joins.map(() => [] as number[]);
  s.run(() => {
    const leaves: (() => void)[] = [];
    joins.forEach((t, k) => s.schedule(() => void leaves.push(renewEvery(s, period, writer(s, times[k]!))), t));
    for (const [t, check] of at) s.schedule(() => check(s), t);
    s.schedule(() => leaves.forEach((l) => l()), leaveAt);
    s.flush();
    expect(s.actions).toHaveLength(0);
  });
  return times;
}

/** The scheduler's actions still to run, not counting the one running now. */
const pending = (s: TestScheduler): number => s.actions.filter((x) => !x.closed).length;

describe('renewEvery (lib/log/renewal-clock.ts)', () => {
  test('writers due at the same instant share one action and are renewed in the same turn, every period', () => {
    // At 1: the leave at 35 and the one bucket.
    expect(renewals(10, [0, 0], 35, [[1, (s) => expect(pending(s)).toBe(2)]])).toEqual([[10, 20, 30], [10, 20, 30]]);
  });

  test('a writer joining between instants is renewed up to a sixteenth of the period early, with others there, never late', () => {
    // At 1 its own instant is 33: in the slice [32, 34), so it joins the bucket due at 32.
    expect(renewals(32, [0, 1], 100)).toEqual([[32, 64, 96], [32, 64, 96]]);
  });

  test('a writer joining in another slice gets its own instant, a period after it joined (rounded down to the slice)', () => {
    expect(renewals(32, [0, 7], 80)).toEqual([[32, 64], [38, 70]]); // 39: slice [38, 40)
  });

  test('two buckets meeting at one instant merge: each writer renewed once per period, one action left', () => {
    // The join at 32 is scheduled first, so it runs before the bucket of the join at 0 fires, and makes a bucket due
    // at 64, where that one lands. At 40: the leave at 130 and one bucket.
    expect(renewals(32, [32, 0], 130, [[40, (s) => expect(pending(s)).toBe(2)]])).toEqual([[64, 96, 128], [32, 64, 96, 128]]);
  });

  test('a writer that leaves is not renewed again; the last to leave cancels the action', () => {
    const s = marbleScheduler();
    s.run(() => {
      const a: number[] = [];
      const b: number[] = [];
      const leaveA = renewEvery(s, 10, writer(s, a));
      const leaveB = renewEvery(s, 10, writer(s, b));
      s.schedule(() => leaveA(), 15);
      s.schedule(() => leaveB(), 25);
      s.flush();
      expect(a).toEqual([10]);
      expect(b).toEqual([10, 20]);
      expect(s.actions).toHaveLength(0);
    });
  });

  test('a writer leaving from within a renewal (its lease failed) leaves the others renewed', () => {
    const s = marbleScheduler();
    s.run(() => {
      const b: number[] = [];
      let leaveA = (): void => undefined;
      leaveA = renewEvery(s, 10, { renew: () => leaveA() });
      const leaveB = renewEvery(s, 10, writer(s, b));
      s.schedule(() => leaveB(), 25);
      s.flush();
      expect(b).toEqual([10, 20]);
      expect(s.actions).toHaveLength(0);
    });
  });

  test('on the real clock: renewals come, and no timer is left once all have left', async () => {
    const timers = (): number => (process as unknown as { getActiveResourcesInfo(): string[] }).getActiveResourcesInfo().filter((h) => h === 'Timeout').length;
    let renewals = 0;
    const before = timers();
    const leave = renewEvery(asyncScheduler, 20, { renew: () => void renewals++ });
    expect(timers()).toBe(before + 1);
    await new Promise((r) => setTimeout(r, 70)); // timers fire in order of their time: the one at 20 ms first
    const during = timers();
    leave();
    expect(renewals).toBeGreaterThanOrEqual(1);
    expect(timers()).toBe(during - 1);
  });
});
