import { filter, map, take } from 'rxjs';
import { fanOut } from '../operators/fanOut';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();

describe('fanOut', () => {
  test('hands each value to every branch in turn, subscribing to the source once', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-----b-----c-----|', { a: 1, b: 2, c: 3 });
      const out = src.pipe(fanOut(map((n: number) => `x${n}`), filter((n: number) => n % 2 === 1)));
      expectObservable(out).toBe('-(ab)--c-----(de)--|', { a: 'x1', b: 1, c: 'x2', d: 'x3', e: 3 });
      expectSubscriptions(src.subscriptions).toBe('^------------------!');
    });
  });

  test('completes when every branch has completed, not before', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-----b-----c-----|', { a: 1, b: 2, c: 3 });
      expectObservable(src.pipe(fanOut(take(1), map((n: number) => n * 10)))).toBe('-(ab)--c-----d-----|', { a: 1, b: 10, c: 20, d: 30 });
      expectSubscriptions(src.subscriptions).toBe('^------------------!');
    });
  });

  test('a source error reaches the output once', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-----#', { a: 1 }, new Error('boom'));
      expectObservable(src.pipe(fanOut(map((n: number) => n), map((n: number) => -n)))).toBe('-(ab)--#', { a: 1, b: -1 }, new Error('boom'));
    });
  });

  test("a branch's error ends the output and unsubscribes the source", () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-----b-----c-----|', { a: 1, b: 2, c: 3 });
      const failing = map((n: number) => {
        if (n === 2) throw new Error('bad');
        return n;
      });
      expectObservable(src.pipe(fanOut(failing, map((n: number) => n * 10)))).toBe('-(ab)--#', { a: 1, b: 10 }, new Error('bad'));
      expectSubscriptions(src.subscriptions).toBe('^------!');
    });
  });

  test('unsubscribing releases the source', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-b-c-|', { a: 1, b: 2, c: 3 });
      expectObservable(src.pipe(fanOut(map((n: number) => n))), '^--!').toBe('-a-', { a: 1 });
      expectSubscriptions(src.subscriptions).toBe('^--!');
    });
  });

  test('with no branch, completes at once without subscribing', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-|', { a: 1 });
      expectObservable(src.pipe(fanOut())).toBe('|');
      expectSubscriptions(src.subscriptions).toBe([]);
    });
  });
});
