import { toResponsesSSE } from '../operators/toResponsesSSE';
import { ResponseStreamError, StreamInterruptedError } from '../lib/errors';
import type { ResponseStreamEvent } from '../lib/events/responses';
import { ev } from '../test/chat/build';
import { at } from '../test/chat/marbles';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
const block = (e: { type: string }) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

describe('toResponsesSSE', () => {
  const a = { ...ev.created(), sequence_number: 0 };
  const b = { ...ev.text('Hi\nthere "x"'), sequence_number: 1 };
  const c = { ...ev.completed(), sequence_number: 2 };

  it('writes each event as an event: and a single data: line, at its own frame, and completes with the source', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b-c|', { a, b, c }).pipe(toResponsesSSE())).toBe('a-b-c|', { a: block(a), b: block(b), c: block(c) });
    });
    expect(block(b).split('\n').filter((l) => l.startsWith('data: '))).toHaveLength(1);
  });

  it('passes errors through by default', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new StreamInterruptedError('resp_1', 1);
      expectObservable(cold('a-#', { a }, err).pipe(toResponsesSSE())).toBe('a-#', { a: block(a) }, err);
    });
  });

  it("with onError 'event', writes a final error event (next sequence number) and completes", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new StreamInterruptedError('resp_1', 1);
      const e = { type: 'error', code: 'stream_interrupted', message: err.message, param: null, sequence_number: 2 };
      expectObservable(cold('a-b-#', { a, b }, err).pipe(toResponsesSSE({ onError: 'event' }))).toBe('a-b-(e|)', { a: block(a), b: block(b), e: block(e) });
    });
  });

  it("with onError 'event', does not repeat a failure the stream already carried, nor leak a foreign error's message", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const failed = { ...ev.failed(), sequence_number: 1 };
      const err = new ResponseStreamError('response.failed', 'server_error', 'boom', undefined, 1, 'resp_1', failed);
      expectObservable(cold('a-(f#)', { a, f: failed }, err).pipe(toResponsesSSE({ onError: 'event' }))).toBe('a-(f|)', { a: block(a), f: block(failed) });
      const secret = new Error('Bearer sk-secret');
      const e = { type: 'error', code: 'server_error', message: 'the upstream stream failed', param: null, sequence_number: 0 };
      expectObservable(cold<ResponseStreamEvent>('#', {}, secret).pipe(toResponsesSSE({ onError: 'event' }))).toBe('(e|)', { e: block(e) });
    });
  });

  it('unsubscribes from the source when unsubscribed', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-b-c|', { a, b, c });
      expectObservable(src.pipe(toResponsesSSE()), '^--!').toBe('a-b', { a: block(a), b: block(b) });
      expectSubscriptions(src.subscriptions).toBe(at([0, '^'], [3, '!']));
    });
  });
});
