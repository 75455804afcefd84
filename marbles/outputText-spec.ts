import { outputText } from '../operators/outputText';
import * as ev from '../test/operators/events';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
const call = ev.fc('fc_1', 'call_1', 'get_weather', '{"city":"Paris"}', 'completed');
const values = {
  a: ev.itemAdded(0, ev.fc('fc_1', 'call_1', 'get_weather')),
  g: ev.argsDelta('fc_1', 0, '{"city":"Paris"}'),
  i: ev.itemDone(0, call),
  c: ev.completed([call]),
  n: ev.incomplete([call]),
  f: ev.failed([]),
  u: ev.unknownEvent(),
  d: ev.textDelta('m', 1, 0, 'Hi'),
};

describe('outputText marbles', () => {
  test('the growing answer; no extra value at the terminal event when there was text', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-d-e-c-|', { ...values, d: ev.textDelta('m', 1, 0, 'He'), e: ev.textDelta('m', 1, 0, 'llo') });
      expectObservable(src.pipe(outputText())).toBe('---x-y---|', { x: 'He', y: 'Hello' });
    });
  });

  test("tool calls only: '' once at response.completed", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-g-i-c-u-|', values);
      expectObservable(src.pipe(outputText())).toBe('-------e---|', { e: '' });
    });
  });

  test("tool calls only: '' at response.incomplete and at response.failed too", () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-n-|', values).pipe(outputText())).toBe('---e-|', { e: '' });
      expectObservable(cold('-a-f-|', values).pipe(outputText())).toBe('---e-|', { e: '' });
    });
  });

  test("no terminal event: '' at completion", () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-g-|', values).pipe(outputText())).toBe('-----(e|)', { e: '' });
      expectObservable(cold('|', values).pipe(outputText())).toBe('(e|)', { e: '' });
    });
  });

  test("'' only once: not again at completion, nor at a second terminal event", () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-c-c-|', values).pipe(outputText())).toBe('---e---|', { e: '' });
    });
  });

  test("text that only the terminal event carries is emitted instead of ''", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const answer = ev.msg('m', [ev.textPart('Hi.')], 'completed');
      const src = cold('-a-c-|', { ...values, c: ev.completed([call, answer]) });
      expectObservable(src.pipe(outputText())).toBe('---x-|', { x: 'Hi.' });
    });
  });

  test('several responses: each turn\'s text after the ones before, a blank line between; a turn that only calls tools adds nothing', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-d-c-g-n-a-i-z-m-e-|', {
        ...values, d: ev.textDelta('m', 0, 0, 'Hi'), c: ev.completed(), g: { type: 'agent.turn.finished' } as never, n: ev.created('resp_2'),
        z: ev.completed([call], 'resp_2'), m: ev.created('resp_3'), e: ev.textDelta('k', 0, 0, 'Bye'),
      });
      expectObservable(src.pipe(outputText())).toBe('-x---------------y-|', { x: 'Hi', y: 'Hi\n\nBye' });
    });
  });

  test('text a part opens with is shown, and the deltas extend it', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-p-d-c-|', { p: ev.partAdded('m', 0, 0, ev.textPart('He')), d: ev.textDelta('m', 0, 0, 'llo'), c: ev.completed() });
      expectObservable(src.pipe(outputText())).toBe('-x-y---|', { x: 'He', y: 'Hello' });
    });
  });

  test("an error emits no ''", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new Error('cut');
      expectObservable(cold('-a-#', values, err).pipe(outputText())).toBe('---#', undefined, err);
    });
  });

  test('unsubscribing unsubscribes from the source, and emits nothing', () => {
    scheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const src = hot('-a-g-c-|', values);
      expectObservable(src.pipe(outputText()), '^--!').toBe('----');
      expectSubscriptions(src.subscriptions).toBe('^--!');
    });
  });
});
