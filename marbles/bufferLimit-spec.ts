import { map, of, throwError } from 'rxjs';
import { InvalidOptionError, LimitExceededError } from '../lib/errors';
import { bufferLimit } from '../operators/bufferLimit';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
const limitError = (max: number) => new LimitExceededError('maxQueue', max);

describe('bufferLimit', () => {
  test('runs the work one value at a time, in order, emitting its results', () => {
    scheduler().run(({ cold, hot, expectObservable }) => {
      const source = hot('-abcd|');
      const work = (v: string) => cold('---(x|)', { x: v.toUpperCase() });
      expectObservable(source.pipe(bufferLimit(3, work))).toBe('----A--B--C--(D|)', { A: 'A', B: 'B', C: 'C', D: 'D' });
    });
  });

  test('completes only after the queue has drained', () => {
    scheduler().run(({ cold, hot, expectObservable }) => {
      const work = (v: string) => cold('--(x|)', { x: v });
      expectObservable(hot('-ab|').pipe(bufferLimit(5, work))).toBe('---a-(b|)');
    });
  });

  test('errors with LimitExceededError(maxQueue) when one value more than max would wait', () => {
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const inner = cold('---(x|)');
      const source = hot('-abcd|');
      expectObservable(source.pipe(bufferLimit(1, () => inner))).toBe('---#', undefined, limitError(1));
      // The running work is cancelled with the error.
      expectSubscriptions(inner.subscriptions).toBe(['-^-!']);
    });
  });

  test('max 0: nothing may wait while work runs', () => {
    scheduler().run(({ cold, hot, expectObservable }) => {
      expectObservable(hot('-ab|').pipe(bufferLimit(0, () => cold('---(x|)')))).toBe('--#', undefined, limitError(0));
    });
  });

  test('a consumer that keeps up never errors, however long the stream', () => {
    scheduler().run(({ cold, hot, expectObservable }) => {
      const source = hot('-a--b--c--d--e--f|');
      expectObservable(source.pipe(bufferLimit(0, (v) => cold('-(x|)', { x: v })))).toBe('--a--b--c--d--e--(f|)');
    });
  });

  test('synchronous work drains without queueing', () => {
    scheduler().run(({ hot, expectObservable }) => {
      expectObservable(hot('-abc|').pipe(bufferLimit(0, (v: string) => of(v).pipe(map((x) => x + x))))).toBe('-abc|', { a: 'aa', b: 'bb', c: 'cc' });
    });
  });

  test('passes a source error through at once', () => {
    scheduler().run(({ cold, hot, expectObservable }) => {
      expectObservable(hot('-a#').pipe(bufferLimit(5, () => cold('---(x|)')))).toBe('--#');
    });
  });

  test('passes an error of the work through', () => {
    scheduler().run(({ hot, expectObservable }) => {
      expectObservable(hot('-a-b|').pipe(bufferLimit(5, () => throwError(() => 'boom')))).toBe('-#', undefined, 'boom');
    });
  });

  test('unsubscribing cancels the running work and the source', () => {
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const inner = cold('-----(x|)');
      const source = hot('-ab-----|');
      expectObservable(source.pipe(bufferLimit(5, () => inner)), '----!').toBe('----');
      expectSubscriptions(inner.subscriptions).toBe(['-^--!']);
      expectSubscriptions(source.subscriptions).toBe(['^---!']);
    });
  });

  test('rejects a negative or fractional max', () => {
    expect(() => bufferLimit(-1, () => of(1))).toThrow(InvalidOptionError);
    expect(() => bufferLimit(1.5, () => of(1))).toThrow('max: expected an integer ≥ 0, got 1.5');
  });
});
