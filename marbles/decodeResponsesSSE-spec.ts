import { DecodeError, ResponseStreamError, SequenceGapError, StreamInterruptedError } from '../lib/errors';
import { decodeResponsesSSE } from '../lib/decode/responses-sse';
import { marbleScheduler } from '../test/helpers/marbles';

const sse = (e: Record<string, unknown>) => `event: ${String(e['type'])}\ndata: ${JSON.stringify(e)}\n\n`;
const resp = (status: string) => ({ id: 'resp_1', object: 'response', status, output: [] });
const created = { type: 'response.created', response: resp('in_progress'), sequence_number: 0 };
const delta = (n: number, d: string) => ({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: d, logprobs: [], sequence_number: n });
const completed = (n: number) => ({ type: 'response.completed', response: resp('completed'), sequence_number: n });

function scheduler() {
  return marbleScheduler();
}

describe('decodeResponsesSSE', () => {
  test('emits each event when its blank line arrives, completes at response.completed', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const text = sse(created);
      const src = cold('-a-b-c-d|', { a: text.slice(0, 20), b: text.slice(20), c: sse(delta(1, 'Hi')), d: sse(completed(2)) });
      expectObservable(src.pipe(decodeResponsesSSE())).toBe('---b-c-(d|)', { b: created, c: delta(1, 'Hi'), d: completed(2) });
    });
  });

  test('an event split anywhere, even between \\r and \\n, is emitted once, when complete', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const text = sse(created).replace(/\n/g, '\r\n');
      const cut = text.indexOf('\r\n') + 1;
      const src = cold('-a-b-c|', { a: text.slice(0, cut), b: text.slice(cut), c: sse(completed(1)) });
      expectObservable(src.pipe(decodeResponsesSSE())).toBe('---b-(c|)', { b: created, c: completed(1) });
    });
  });

  test('stops at the terminal event and ignores what follows', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-b-c-|', { a: sse(created), b: sse(completed(1)), c: sse(delta(2, 'late')) });
      expectObservable(src.pipe(decodeResponsesSSE())).toBe('-a-(b|)', { a: created, b: completed(1) });
      expectSubscriptions(src.subscriptions).toBe('^--!');
    });
  });

  test('a body that ends before a terminal event errors with StreamInterruptedError at its end', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-|', { a: sse(created), b: sse(delta(1, 'x')) });
      expectObservable(src.pipe(decodeResponsesSSE())).toBe('-a-b-#', { a: created, b: delta(1, 'x') }, new StreamInterruptedError('resp_1', 1));
    });
  });

  test('a source error mid-body becomes StreamInterruptedError carrying the cursor', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-#', { a: sse(created) }, new Error('socket hang up'));
      const out = src.pipe(decodeResponsesSSE());
      expectObservable(out).toBe('-a-#', { a: created }, new StreamInterruptedError('resp_1', 0, 'the connection broke (socket hang up)'));
    });
  });

  test('response.failed is emitted, then the stream errors with ResponseStreamError', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const failed = { type: 'response.failed', response: { ...resp('failed'), error: { code: 'server_error', message: 'boom' } }, sequence_number: 1 };
      const src = cold('-a-b-|', { a: sse(created), b: sse(failed) });
      const err = new ResponseStreamError('response.failed', 'server_error', 'boom', undefined, 1, 'resp_1', failed);
      expectObservable(src.pipe(decodeResponsesSSE())).toBe('-a-(b#)', { a: created, b: failed }, err);
    });
  });

  test("errorEvents: 'value' completes after an error event instead", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const error = { type: 'error', code: 'rate_limit_exceeded', message: 'slow down', param: null, sequence_number: 1 };
      const src = cold('-a-b-|', { a: sse(created), b: sse(error) });
      expectObservable(src.pipe(decodeResponsesSSE({ errorEvents: 'value' }))).toBe('-a-(b|)', { a: created, b: error });
    });
  });

  test('a duplicate sequence_number is dropped without delaying the next event', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('-a-b-c-d|', { a: sse(created), b: sse(delta(1, 'x')), c: sse(delta(1, 'x')), d: sse(completed(2)) });
      expectObservable(src.pipe(decodeResponsesSSE())).toBe('-a-b---(d|)', { a: created, b: delta(1, 'x'), d: completed(2) });
    });
  });

  test("a gap is tolerated by default and an error under sequence: 'strict'", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const values = { a: sse(created), b: sse(delta(3, 'x')), c: sse(completed(4)) };
      expectObservable(cold('-a-b-c|', values).pipe(decodeResponsesSSE())).toBe('-a-b-(c|)', { a: created, b: delta(3, 'x'), c: completed(4) });
      expectObservable(cold('-a-b-c|', values).pipe(decodeResponsesSSE({ sequence: 'strict' }))).toBe(
        '-a-#',
        { a: created },
        new SequenceGapError(1, 3, 'response.output_text.delta'),
      );
    });
  });

  test('an event that fails its codec errors at that event with type, sequence_number and path', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const bad = { ...delta(1, 'x'), delta: 42 };
      const src = cold('-a-b-|', { a: sse(created), b: sse(bad) });
      expectObservable(src.pipe(decodeResponsesSSE())).toBe('-a-#', { a: created }, new DecodeError('expected string, got number', 'response.output_text.delta', 1, 'delta'));
    });
  });

  test('unsubscribing stops reading the source', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-b-c-|', { a: sse(created), b: sse(delta(1, 'x')), c: sse(completed(2)) });
      expectObservable(src.pipe(decodeResponsesSSE()), '^--!').toBe('-a-', { a: created });
      expectSubscriptions(src.subscriptions).toBe('^--!');
    });
  });
});
