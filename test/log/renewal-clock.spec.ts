import { asyncScheduler } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { renewEvery } from '../../lib/log/renewal-clock';
import { marbleScheduler } from '../helpers/marbles';

/** A writer that notes the virtual time of each renewal. */
const writer = (s: TestScheduler, times: number[]) => ({ renew: () => void times.push(s.now()) });

describe('renewEvery (lib/log/renewal-clock.ts)', () => {
  test('writers due at the same instant share one action and are renewed in the same turn, every period', () => {
    const s = marbleScheduler();
    s.run(() => {
      const a: number[] = [];
      const b: number[] = [];
      const leaveA = renewEvery(s, 10, writer(s, a));
      const leaveB = renewEvery(s, 10, writer(s, b));
      expect(s.actions).toHaveLength(1);
      s.schedule(() => (leaveA(), leaveB()), 35);
      s.flush();
      expect(a).toEqual([10, 20, 30]);
      expect(b).toEqual([10, 20, 30]);
    });
  });

  test('a writer joining between instants is renewed up to a sixteenth of the period early, with others there, never late', () => {
    const s = marbleScheduler();
    s.run(() => {
      const first: number[] = [];
      const late: number[] = [];
      const leaves: (() => void)[] = [];
      leaves.push(renewEvery(s, 32, writer(s, first))); // due 32, 64, …
      // At 1 its own instant is 33: in the slice [32, 34), so it joins the bucket due at 32.
      s.schedule(() => void leaves.push(renewEvery(s, 32, writer(s, late))), 1);
      s.schedule(() => leaves.forEach((l) => l()), 100);
      s.flush();
      expect(first).toEqual([32, 64, 96]);
      expect(late).toEqual([32, 64, 96]);
    });
  });

  test('a writer joining in another slice gets its own instant, a period after it joined (rounded down to the slice)', () => {
    const s = marbleScheduler();
    s.run(() => {
      const first: number[] = [];
      const other: number[] = [];
      const leaves: (() => void)[] = [];
      leaves.push(renewEvery(s, 32, writer(s, first)));
      s.schedule(() => void leaves.push(renewEvery(s, 32, writer(s, other))), 7); // 39: slice [38, 40)
      s.schedule(() => leaves.forEach((l) => l()), 80);
      s.flush();
      expect(first).toEqual([32, 64]);
      expect(other).toEqual([38, 70]);
    });
  });

  test('two buckets meeting at one instant merge: each writer renewed once per period, one action left', () => {
    const s = marbleScheduler();
    s.run(() => {
      const a: number[] = [];
      const c: number[] = [];
      const leaves: (() => void)[] = [];
      // Scheduled before A's bucket exists, so that at 32 it runs first and makes a bucket due at 64, where A's lands.
      s.schedule(() => void leaves.push(renewEvery(s, 32, writer(s, c))), 32);
      leaves.push(renewEvery(s, 32, writer(s, a)));
      s.schedule(() => {
        expect(s.actions.filter((x) => !x.closed)).toHaveLength(2); // the leave below, and the one bucket
      }, 40);
      s.schedule(() => leaves.forEach((l) => l()), 130);
      s.flush();
      expect(a).toEqual([32, 64, 96, 128]);
      expect(c).toEqual([64, 96, 128]);
    });
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
