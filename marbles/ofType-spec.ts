import { map } from 'rxjs';
import { NetworkError, StreamInterruptedError } from '../lib/errors';
import type { ResponseStreamEvent } from '../lib/events/responses';
import { ofType } from '../operators/ofType';
import { marbleScheduler } from '../test/helpers/marbles';
import * as ev from '../test/operators/events';

const m = ev.msg('m');
const values = {
  c: ev.created(),
  a: ev.itemAdded(0, m),
  x: ev.textDelta('m', 0, 0, 'Hel'),
  y: ev.textDelta('m', 0, 0, 'lo'),
  r: ev.refusalDelta('m', 0, 1, 'no'),
  t: ev.textDone('m', 0, 0, 'Hello'),
  u: ev.unknownEvent(),
  i: ev.itemDone(0, { ...m, status: 'completed' }),
  z: ev.completed(),
};

describe('ofType', () => {
  test('one type out of a mixed stream: only those events, the same objects, at the same frames; completion passes through', () => {
    marbleScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-c-a-x-r-y-u-t-i-z-|', values);
      expectObservable(src.pipe(ofType('response.output_text.delta'))).toBe('-----x---y---------|', values);
      expectSubscriptions(src.subscriptions).toBe('^------------------!');
    });
  });

  test('several types: each of them, in source order, nothing else', () => {
    marbleScheduler().run(({ cold, expectObservable }) => {
      const src = cold('-c-a-x-r-y-u-t-i-z-|', values);
      expectObservable(src.pipe(ofType('response.output_text.delta', 'response.refusal.delta', 'response.completed'))).toBe('-----x-r-y-------z-|', values);
      expectObservable(src.pipe(ofType('response.created', 'response.output_item.added', 'response.output_item.done'))).toBe('-c-a-----------i---|', values);
    });
  });

  test('the same type listed twice lets each event through once', () => {
    marbleScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-x-y-|', values).pipe(ofType('response.output_text.delta', 'response.output_text.delta'))).toBe('-x-y-|', values);
    });
  });

  test('a type that never comes: nothing, then completion; an unknown event type is never let through', () => {
    marbleScheduler().run(({ cold, expectObservable }) => {
      const src = cold('-c-u-z-|', values);
      expectObservable(src.pipe(ofType('response.output_text.delta'))).toBe('-------|');
      // An undocumented type cannot be asked for (the types are checked), so nothing matches it.
      expectObservable(src.pipe(ofType('response.created', 'response.completed'))).toBe('-c---z-|', values);
    });
  });

  test('events without a known shape are matched by `type` only', () => {
    marbleScheduler().run(({ cold, expectObservable }) => {
      const odd = { type: 'response.output_text.delta' } as ResponseStreamEvent; // no other field
      const notAnEvent = { type: 'response.output_text.delta.extra' } as ResponseStreamEvent;
      expectObservable(cold('-o-n-|', { o: odd, n: notAnEvent }).pipe(ofType('response.output_text.delta'))).toBe('-o---|', { o: odd });
    });
  });

  test('an error passes through untouched (the same error, class, code and retryable), after the values before it', () => {
    marbleScheduler().run(({ cold, expectObservable }) => {
      const cut = new StreamInterruptedError('resp_1', 2);
      expectObservable(cold('-c-x-r-#', values, cut).pipe(ofType('response.output_text.delta'))).toBe('---x---#', values, cut);
      const net = new NetworkError('socket hang up');
      expectObservable(cold('-c-#', values, net).pipe(ofType('response.output_text.delta'))).toBe('---#', undefined, net);
    });
  });

  test('unsubscribing unsubscribes from the source', () => {
    marbleScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const src = hot('-c-x---y-z-|', values);
      expectObservable(src.pipe(ofType('response.output_text.delta')), '^----!').toBe('---x-', values);
      expectSubscriptions(src.subscriptions).toBe('^----!');
    });
  });

  test('narrowed: the values are typed as the chosen events', () => {
    marbleScheduler().run(({ cold, expectObservable }) => {
      const deltas = cold('-c-x-y-z-|', values).pipe(ofType('response.output_text.delta'), map((e) => e.delta));
      expectObservable(deltas).toBe('---a-b---|', { a: 'Hel', b: 'lo' });
    });
  });

  test('each subscription is independent (cold in, cold out)', () => {
    marbleScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-x-y-|', values);
      const out = src.pipe(ofType('response.output_text.delta'));
      expectObservable(out).toBe('-x-y-|', values);
      expectObservable(out).toBe('-x-y-|', values);
      expectSubscriptions(src.subscriptions).toBe(['^----!', '^----!']);
    });
  });
});
