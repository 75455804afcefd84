// smoothText runs your code: a segmenter (`chunking`), a scheduler, the getters of the values it paces. What
// it throws ends the stream with that error, at once or in a scheduled release, never as an uncaught exception.
import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { smoothText } from '../operators/smoothText';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
const boom = new Error('segmenter failed');

/** A grapheme segmenter that throws on text containing `bad`. */
function throwingSegmenter(bad: string): Intl.Segmenter {
  const real = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return {
    segment(text: string) {
      if (text.includes(bad)) throw boom;
      return real.segment(text);
    },
    resolvedOptions: () => real.resolvedOptions(),
  } as Intl.Segmenter;
}

describe('smoothText: what your code throws ends the stream', () => {
  test('a segmenter that throws on text received now: the error at that frame, nothing after', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-c|', { a: 'ok', b: 'ok!', c: 'ok!?' });
      expectObservable(src.pipe(smoothText({ chunking: throwingSegmenter('!'), strings: 'deltas', delayMs: 0 }))).toBe('-x-#', { x: 'o' }, boom);
    });
  });

  test('a segmenter that throws on text taken in by a scheduled release: the error at that release', () => {
    scheduler().run(({ cold, expectObservable }) => {
      // 'One two three' is paced one word per 4 frames; the longer text waits for the next release, which cuts it.
      const src = cold('-ab-------|', { a: 'One two three', b: 'One two three four!' });
      expectObservable(src.pipe(smoothText({ chunking: throwingSegmenter('!'), delayMs: 4 }))).toBe('-x---#', { x: 'O' }, boom);
    });
  });

  test('a scheduler whose schedule() throws: the first word goes out at once, then the error when the next release is scheduled', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const failing: SchedulerLike = {
        now: () => asyncScheduler.now(),
        schedule: () => {
          throw boom;
        },
      };
      const src = cold('-a---|', { a: 'One two three' });
      expectObservable(src.pipe(smoothText({ scheduler: failing, delayMs: 5 }))).toBe('-(x#)', { x: 'One ' }, boom);
    });
  });

  test("a value whose getters throw (a snapshot-like Proxy): the error at that value", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const hostile = new Proxy({}, { get: () => { throw boom; }, has: () => true }) as never;
      expectObservable(cold('-a-|', { a: hostile }).pipe(smoothText())).toBe('-#', undefined, boom);
    });
  });
});
