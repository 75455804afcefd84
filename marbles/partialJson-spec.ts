import { partialJson } from '../operators/partialJson';
import { InvalidOptionError, JsonTextError } from '../lib/errors';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();

describe('partialJson marbles', () => {
  test('the value parsed so far at each snapshot; a string grows as a prefix, a container shows once opened', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-c-|', { a: '{"city": "Pa', b: '{"city": "Paris", "days": [', c: '{"city": "Paris", "days": [3]}' });
      expectObservable(src.pipe(partialJson())).toBe('-x-y-z-|', { x: { city: 'Pa' }, y: { city: 'Paris', days: [] }, z: { city: 'Paris', days: [3] } });
    });
  });

  test('emits only when the value changed: an unfinished number, whitespace and a repeated snapshot add nothing', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-c-d-e-|', { a: '{"n": 1', b: '{"n": 12', c: '{"n": 12', d: '{"n": 12 ', e: '{"n": 12 }' });
      expectObservable(src.pipe(partialJson())).toBe('-x-----y---|', { x: {}, y: { n: 12 } });
    });
  });

  test('a number at the top level is complete only at completion: emitted then', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b-|', { a: '4', b: '42' }).pipe(partialJson())).toBe('-----(x|)', { x: 42 });
    });
  });

  test('the final value is not emitted twice when the last emission showed it', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-|', { a: '["x", true]' }).pipe(partialJson())).toBe('-x-|', { x: ['x', true] });
    });
  });

  test('text that is unfinished at completion: JsonTextError with the position', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-|', { a: '{"n": 1' }).pipe(partialJson())).toBe('-x-#', { x: {} }, new JsonTextError("unexpected end of the text, expected ',' or '}'", 7));
    });
  });

  test('text that can no longer be JSON: JsonTextError at once, with the position', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b-|', { a: '[1', b: '[1 2' }).pipe(partialJson())).toBe('-x-#', { x: [] }, new JsonTextError("expected ',' or ']'", 3));
    });
  });

  test('no text at all: JsonTextError at completion, position 0', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-|').pipe(partialJson())).toBe('-#', undefined, new JsonTextError('unexpected end of the text, expected a value', 0));
    });
  });

  test('a snapshot shorter than the previous one is a JsonTextError (snapshots must grow)', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b-|', { a: '["ab', b: '["a' }).pipe(partialJson())).toBe(
        '-x-#',
        { x: ['ab'] },
        new JsonTextError('a snapshot of 3 characters after one of 4: partialJson expects each text to extend the previous', 3),
      );
    });
  });

  test('an upstream error passes through', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-#', { a: '[' }).pipe(partialJson())).toBe('-x-#', { x: [] });
    });
  });

  test('unsubscription reaches the source', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-b-c-|', { a: '[1', b: '[1, 2', c: '[1, 2, 3]' });
      expectObservable(src.pipe(partialJson()), '----!').toBe('-x-y-', { x: [], y: [1] });
      expectSubscriptions(src.subscriptions).toBe('^---!');
    });
  });

  test('maxDepth: deeper nesting is a JsonTextError; an invalid maxDepth is refused when the operator is made', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-|', { a: '[[[' }).pipe(partialJson({ maxDepth: 2 }))).toBe('-#', undefined, new JsonTextError('nesting deeper than maxDepth (2)', 2));
    });
    expect(() => partialJson({ maxDepth: 0 })).toThrow(InvalidOptionError);
  });
});
