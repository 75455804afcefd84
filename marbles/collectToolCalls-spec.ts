import { collectToolCalls } from '../operators/collectToolCalls';
import * as ev from '../test/operators/events';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
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

  test('a client tool_search_call: one value when its item closes; a server one is left out', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const search = (execution: string, status: string) => ({ id: 'ts', type: 'tool_search_call', call_id: 'cs', execution, arguments: { query: 'q' }, status });
      const src = cold('-a-i-z-|', { a: ev.itemAdded(0, search('client', 'in_progress')), i: ev.itemDone(0, search('client', 'completed')), z: ev.completed([search('client', 'completed')]) });
      expectObservable(src.pipe(collectToolCalls())).toBe('---x---|', {
        x: expect.objectContaining({ type: 'tool_search_call', state: 'complete', callId: 'cs', execution: 'client', arguments: { query: 'q' }, outputIndex: 0 }),
      });
      const server = cold('-a-i-|', { a: ev.itemAdded(0, search('server', 'in_progress')), i: ev.itemDone(0, search('server', 'completed')) });
      expectObservable(server.pipe(collectToolCalls())).toBe('-----|');
    });
  });

  test('{ partial: true }: arguments aimed at a file search emit nothing', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-s-a-|', { s: ev.itemAdded(0, { id: 'fs', type: 'file_search_call', status: 'in_progress' }), a: ev.argsDelta('fs', 0, '{}') });
      expectObservable(src.pipe(collectToolCalls({ partial: true }))).toBe('-----|');
    });
  });
});
