import { partialToolCalls } from '../operators/partialToolCalls';
import * as ev from '../test/operators/events';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
const call = (args: unknown, done: boolean, oi = 0, id = 'fc_1', callId = 'call_1', name = 'get_weather') => ({ call_id: callId, name, item_id: id, output_index: oi, arguments: args, done });

describe('partialToolCalls marbles', () => {
  test("a call's partial arguments as they stream, then done with the parsed arguments", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-c-d-i-|', {
        a: ev.itemAdded(0, ev.fc('fc_1', 'call_1', 'get_weather')),
        b: ev.argsDelta('fc_1', 0, '{"city":"Pa'),
        c: ev.argsDelta('fc_1', 0, 'ris"}'),
        d: ev.argsDone('fc_1', 0, '{"city":"Paris"}'),
        i: ev.itemDone(0, ev.fc('fc_1', 'call_1', 'get_weather', '{"city":"Paris"}', 'completed')),
      });
      expectObservable(src.pipe(partialToolCalls())).toBe('---x-y-z---|', {
        x: call({ city: 'Pa' }, false),
        y: call({ city: 'Paris' }, false),
        z: call({ city: 'Paris' }, true),
      });
    });
  });

  test('two calls interleaved: one parser each, matched by item_id', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-c-d-e-f-|', {
        a: ev.itemAdded(0, ev.fc('fc_1', 'call_1', 'f')),
        b: ev.itemAdded(1, ev.fc('fc_2', 'call_2', 'g')),
        c: ev.argsDelta('fc_2', 1, '{"n":1}'),
        d: ev.argsDelta('fc_1', 0, '{"s":"x"}'),
        e: ev.argsDone('fc_1', 0, '{"s":"x"}'),
        f: ev.argsDone('fc_2', 1, '{"n":1}'),
      });
      expectObservable(src.pipe(partialToolCalls())).toBe('-----x-y-z-w-|', {
        x: call({ n: 1 }, false, 1, 'fc_2', 'call_2', 'g'),
        y: call({ s: 'x' }, false, 0, 'fc_1', 'call_1', 'f'),
        z: call({ s: 'x' }, true, 0, 'fc_1', 'call_1', 'f'),
        w: call({ n: 1 }, true, 1, 'fc_2', 'call_2', 'g'),
      });
    });
  });

  test('arguments only the closed item carries: done at output_item.done', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-(i|)', { i: ev.itemDone(0, ev.fc('fc_1', 'call_1', 'get_weather', '{"city":"Oslo"}', 'completed')) });
      expectObservable(src.pipe(partialToolCalls())).toBe('-(xz|)', { x: call({ city: 'Oslo' }, false), z: call({ city: 'Oslo' }, true) });
    });
  });

  test('arguments that are not JSON: a JsonTextError naming the call', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-d-|', {
        a: ev.itemAdded(0, ev.fc('fc_1', 'call_1', 'get_weather')),
        b: ev.argsDelta('fc_1', 0, '{"city":'),
        d: ev.argsDone('fc_1', 0, '{"city":}'),
      });
      expectObservable(src.pipe(partialToolCalls())).toBe(
        '---x-#',
        { x: call({}, false) },
        expect.objectContaining({ name: 'JsonTextError', message: expect.stringContaining('function call "get_weather" (call_id "call_1")') }) as unknown as Error,
      );
    });
  });

  test('text, other items and the source error pass through untouched', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new Error('boom');
      const src = cold('-t-#', { t: ev.textDelta('m', 0, 0, '{"a":1}') }, err);
      expectObservable(src.pipe(partialToolCalls())).toBe('---#', {}, err);
    });
  });

  test('unsubscribing stops reading the source', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-b-c-|', {
        a: ev.itemAdded(0, ev.fc('fc_1', 'call_1', 'get_weather')),
        b: ev.argsDelta('fc_1', 0, '{"city":"Pa'),
        c: ev.argsDelta('fc_1', 0, 'ris"}'),
      });
      expectObservable(src.pipe(partialToolCalls()), '^----!').toBe('---x--', { x: call({ city: 'Pa' }, false) });
      expectSubscriptions(src.subscriptions).toBe('^----!');
    });
  });
});
