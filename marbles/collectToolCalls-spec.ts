import { TestScheduler } from 'rxjs/testing';
import { collectToolCalls } from '../operators/collectToolCalls';
import * as ev from '../test/operators/events';

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const item = ev.fc('f', 'c', 'go', '{"a":1}', 'completed');
const values = { s: ev.itemAdded(0, ev.fc('f', 'c', 'go')), a: ev.argsDelta('f', 0, '{"a":'), b: ev.argsDelta('f2', 0, '1}'), d: ev.argsDone('f', 0, '{"a":1}'), i: ev.itemDone(0, item), z: ev.completed([item]) };
const call = (state: string, args: string, extra: Record<string, unknown> = {}) =>
  expect.objectContaining({ type: 'function_call', state, callId: 'c', name: 'go', arguments: args, outputIndex: 0, ...extra });

describe('collectToolCalls marbles', () => {
  test('one value when the item closes; completion passes through', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-s-a-b-d-i-z-|', values);
      expectObservable(src.pipe(collectToolCalls())).toBe('---------x---|', { x: call('complete', '{"a":1}', { parsed: { ok: true, value: { a: 1 } }, item }) });
    });
  });

  test('{ partial: true }: a value after every delta (rotated item ids too)', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-s-a-b-d-i-|', values);
      expectObservable(src.pipe(collectToolCalls({ partial: true }))).toBe('---p-q---x-|', {
        p: call('partial', '{"a":'), q: call('partial', '{"a":1}'), x: call('complete', '{"a":1}'),
      });
    });
  });

  test('a cut-off call is left out, or flagged incomplete at the end', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-s-a-|', values);
      expectObservable(src.pipe(collectToolCalls())).toBe('-----|');
      expectObservable(src.pipe(collectToolCalls({ incomplete: true }))).toBe('-----(x|)', { x: call('incomplete', '{"a":') });
    });
  });

  test('an error passes through untouched', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new Error('cut');
      expectObservable(cold('-s-a-#', values, err).pipe(collectToolCalls({ incomplete: true }))).toBe('-----#', undefined, err);
    });
  });

  test('unsubscribing unsubscribes from the source', () => {
    scheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const src = hot('-s-a-b-d-i-|', values);
      expectObservable(src.pipe(collectToolCalls()), '^----!').toBe('------');
      expectSubscriptions(src.subscriptions).toBe('^----!');
    });
  });
});
