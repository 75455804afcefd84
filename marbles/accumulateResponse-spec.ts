import { accumulateResponse } from '../operators/accumulateResponse';
import * as ev from '../test/operators/events';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
const done = ev.msg('m', [ev.textPart('Hi!')], 'completed');
const values = { c: ev.created(), a: ev.itemAdded(0, ev.msg('m')), d: ev.textDelta('m', 0, 0, 'Hi'), u: ev.unknownEvent(), i: ev.itemDone(0, done), z: ev.completed([]) };
const r = (status: string, output: unknown[]) => expect.objectContaining({ id: 'resp_1', status, output });
const partial = ev.msg('m', [{ type: 'output_text', text: 'Hi', annotations: [] }]);

describe('accumulateResponse marbles', () => {
  test('a value per changing event; completed with output [] rebuilt from the closed items', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-c-a-d-u-i-z-|', values);
      expectObservable(src.pipe(accumulateResponse())).toBe('-1-2-3---4-5-|', {
        1: r('in_progress', []), 2: r('in_progress', [ev.msg('m')]), 3: r('in_progress', [partial]), 4: r('in_progress', [done]), 5: r('completed', [done]),
      });
    });
  });

  test('a resume seam (in_progress without created) continues the same state', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-c-a-d-p-e-|', { ...values, p: ev.inProgress(), e: ev.textDelta('m', 0, 0, '!') });
      const more = ev.msg('m', [{ type: 'output_text', text: 'Hi!', annotations: [] }]);
      expectObservable(src.pipe(accumulateResponse())).toBe('-1-2-3-4-5-|', {
        1: r('in_progress', []), 2: r('in_progress', [ev.msg('m')]), 3: r('in_progress', [partial]), 4: r('in_progress', [partial]), 5: r('in_progress', [more]),
      });
    });
  });

  test('another response on the same stream (after a terminal event, agent events between) starts afresh', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const second = ev.msg('n', [{ type: 'output_text', text: 'Yo', annotations: [] }]);
      const src = cold('-a-d-z-g-b-e-|', { ...values, g: { type: 'agent.turn.finished' } as never, b: ev.itemAdded(0, ev.msg('n')), e: ev.textDelta('n', 0, 0, 'Yo') });
      const v = (status: string, output: unknown[]) => expect.objectContaining({ status, output }); // no created: the id comes with completed
      expectObservable(src.pipe(accumulateResponse())).toBe('-1-2-3---4-5-|', {
        1: v('in_progress', [ev.msg('m')]), 2: v('in_progress', [partial]), 3: r('completed', [partial]), 4: v('in_progress', [ev.msg('n')]), 5: v('in_progress', [second]),
      });
    });
  });

  test('an error passes through untouched', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new Error('cut');
      expectObservable(cold('-c-#', values, err).pipe(accumulateResponse())).toBe('-1-#', { 1: r('in_progress', []) }, err);
    });
  });

  test('unsubscribing unsubscribes from the source', () => {
    scheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const src = hot('-c-a-d-|', values);
      expectObservable(src.pipe(accumulateResponse()), '^---!').toBe('-1-2', { 1: r('in_progress', []), 2: r('in_progress', [ev.msg('m')]) });
      expectSubscriptions(src.subscriptions).toBe('^---!');
    });
  });

  test('a terminal output that leaves out a streamed item: that item stays, at its index, in the completed value', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const rs = { id: 'rs', type: 'reasoning', summary: [] };
      const src = cold('-c-r-a-i-z-|', { c: ev.created(), r: ev.itemAdded(0, rs), a: ev.itemAdded(1, ev.msg('m')), i: ev.itemDone(1, done), z: ev.completed([done]) });
      expectObservable(src.pipe(accumulateResponse())).toBe('-0-1-2-3-4-|', {
        0: r('in_progress', []), 1: r('in_progress', [rs]), 2: r('in_progress', [rs, ev.msg('m')]), 3: r('in_progress', [rs, done]), 4: r('completed', [rs, done]),
      });
    });
  });

  test('shell output: a value per delta, the .done content replaces it; shell output aimed at a message emits nothing', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const sho = { id: 'sho', type: 'shell_call_output', call_id: 'c', status: 'in_progress', output: [] };
      const out = (oi: number, d: Record<string, unknown>) => ({ type: 'response.shell_call_output_content.delta', item_id: 'sho', output_index: oi, command_index: 0, delta: d }) as never;
      const content = { stdout: 'ok\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } };
      const src = cold('-c-s-m-d-w-e-|', {
        c: ev.created(), s: ev.itemAdded(0, sho), m: ev.itemAdded(1, ev.msg('m')), d: out(0, { stdout: 'o' }), w: out(1, { stdout: 'x' }),
        e: { type: 'response.shell_call_output_content.done', item_id: 'sho', output_index: 0, command_index: 0, output: [content] } as never,
      });
      expectObservable(src.pipe(accumulateResponse())).toBe('-0-1-2-3---4-|', {
        0: r('in_progress', []), 1: r('in_progress', [sho]), 2: r('in_progress', [sho, ev.msg('m')]),
        3: r('in_progress', [{ ...sho, output: [{ stdout: 'o', stderr: '' }] }, ev.msg('m')]), 4: r('in_progress', [{ ...sho, output: [content] }, ev.msg('m')]),
      });
    });
  });
});
