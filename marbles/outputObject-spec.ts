import * as t from 'io-ts';
import { outputObject } from '../operators/outputObject';
import { DecodeError, IncompleteResponseError, RefusalError, ResponseCancelledError, ResponseStreamError, StreamInterruptedError } from '../lib/errors';
import * as ev from '../test/operators/events';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
const Card = t.type({ title: t.string, tags: t.array(t.string) });
const msg = ev.msg('m', [], 'in_progress');
const d = (text: string) => ev.textDelta('m', 0, 0, text);
const values = {
  a: ev.itemAdded(0, msg),
  b: d('{"title":"Hi'),
  e: d('!","tags":['),
  f: d('"x"]}'),
  c: ev.completed([ev.msg('m', [ev.textPart('{"title":"Hi!","tags":["x"]}')], 'completed')]),
};

describe('outputObject marbles', () => {
  test('partial values as the JSON streams, then the decoded value and completion', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-e-f-c-|', values);
      expectObservable(src.pipe(outputObject(Card))).toBe('---x-y-z-(v|)', {
        x: { title: 'Hi' },
        y: { title: 'Hi!', tags: [] },
        z: { title: 'Hi!', tags: ['x'] },
        v: { title: 'Hi!', tags: ['x'] },
      });
    });
  });

  test('text only the terminal event carries is read from its output', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-c-|', values).pipe(outputObject(Card))).toBe('-(zv|)', { z: { title: 'Hi!', tags: ['x'] }, v: { title: 'Hi!', tags: ['x'] } });
    });
  });

  test('the codec rejects the final value: a DecodeError naming the field path', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const c = cold('-a-b-c-|', { ...values, b: d('{"title":"Hi","tags":[1]}'), c: ev.completed([]) });
      expectObservable(c.pipe(outputObject(Card))).toBe('---x-#', { x: { title: 'Hi', tags: [1] } }, new DecodeError('the JSON answer does not match the codec: expected string, got a number', undefined, undefined, 'tags[0]'));
    });
  });

  test("strict mode's null for an absent optional property is no value: the key is dropped before decoding", () => {
    // jsonSchemaFormat makes an optional property required and nullable; a nullable one keeps its null.
    const Note = t.intersection([t.type({ title: t.string, by: t.union([t.string, t.null]) }), t.partial({ rating: t.number })]);
    scheduler().run(({ cold, expectObservable }) => {
      const c = cold('-a-b-c-|', { ...values, b: d('{"title":"Hi","by":null,"rating":null}'), c: ev.completed([]) });
      expectObservable(c.pipe(outputObject(Note))).toBe('---x-(v|)', { x: { title: 'Hi', by: null, rating: null }, v: { title: 'Hi', by: null } });
    });
  });

  test('a refusal is a RefusalError carrying its text', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-r-s-|', { a: values.a, r: ev.refusalDelta('m', 0, 0, "I can't"), s: ev.refusalDone('m', 0, 0, "I can't help.") });
      expectObservable(src.pipe(outputObject(Card))).toBe('-----#', {}, new RefusalError("I can't help.", undefined));
    });
  });

  test('response.incomplete before the JSON is complete: IncompleteResponseError with the reason', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-n-|', { ...values, n: ev.incomplete([], 'resp_1') });
      expectObservable(src.pipe(outputObject(Card))).toBe('---x-#', { x: { title: 'Hi' } }, new IncompleteResponseError('max_output_tokens', 'resp_1', 'the JSON answer'));
    });
  });

  test('response.failed and cancellation are their stream errors', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const f = ev.failed([], 'resp_1');
      expectObservable(cold('-a-f-|', { a: values.a, f }).pipe(outputObject(Card))).toBe('---#', {}, new ResponseStreamError('response.failed', 'server_error', 'boom', undefined, (f as { sequence_number: number }).sequence_number, 'resp_1', f));
      const x = { type: 'response.cancelled', response: ev.resp('resp_1', 'cancelled'), sequence_number: 7 } as unknown as ReturnType<typeof ev.created>;
      expectObservable(cold('-a-x-|', { a: values.a, x }).pipe(outputObject(Card))).toBe('---#', {}, new ResponseCancelledError('response.cancelled', 7, 'resp_1', x));
    });
  });

  test('the events end before a terminal event and the JSON: StreamInterruptedError', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b-|', values).pipe(outputObject(Card))).toBe('---x-#', { x: { title: 'Hi' } }, new StreamInterruptedError(undefined, undefined, 'the events ended before the JSON answer was complete'));
    });
  });

  test('a response that only called tools is skipped: the next response holds the answer', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const call = ev.fc('fc_1', 'call_1', 'get_weather', '{}', 'completed');
      const src = cold('-t-u-a-g-c-|', {
        t: ev.itemAdded(0, call),
        u: ev.completed([call]),
        a: ev.itemAdded(0, msg),
        g: d('{"title":"A","tags":[]}'),
        c: ev.completed([]),
      });
      const v = { title: 'A', tags: [] };
      expectObservable(src.pipe(outputObject(Card))).toBe('-------x-(v|)', { x: v, v });
    });
  });

  test('outputIndex picks another item', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-o-g-c-|', {
        a: values.a,
        o: d('{"title":"no"'),
        g: ev.textDelta('m2', 1, 0, '{"title":"B","tags":[]}'),
        c: ev.completed([]),
      });
      const v = { title: 'B', tags: [] };
      expectObservable(src.pipe(outputObject(Card, { outputIndex: 1 }))).toBe('-----x-(v|)', { x: v, v });
    });
  });

  test('unsubscribing stops reading the source', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-b-e-f-c-|', values);
      expectObservable(src.pipe(outputObject(Card)), '^----!').toBe('---x--', { x: { title: 'Hi' } });
      expectSubscriptions(src.subscriptions).toBe('^----!');
    });
  });
});
