import { toChatSSE } from '../operators/toChatSSE';
import { ResponseStreamError } from '../lib/errors';
import { chunk } from '../test/chat/build';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();
const data = (c: unknown) => `data: ${JSON.stringify(c)}\n\n`;

describe('toChatSSE', () => {
  const a = chunk({ role: 'assistant', content: '' });
  const b = chunk({ content: 'line\nbreak' });
  const c = chunk({}, 'stop');

  it('writes one data: line per chunk at its frame, then data: [DONE] when the chunks complete', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b-c-|', { a, b, c }).pipe(toChatSSE())).toBe('a-b-c-(d|)', { a: data(a), b: data(b), c: data(c), d: 'data: [DONE]\n\n' });
    });
    expect(data(b).split('\n').filter((l) => l !== '')).toHaveLength(1);
  });

  it('passes errors through by default, with no [DONE]', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new Error('x');
      expectObservable(cold('a-#', { a }, err).pipe(toChatSSE())).toBe('a-#', { a: data(a) }, err);
    });
  });

  it("with onError 'event', writes data: {error} and completes without [DONE]", () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new ResponseStreamError('response.failed', 'server_error', 'boom', undefined, 3, 'resp_1', {});
      const e = { error: { message: 'response.failed: server_error: boom', type: 'server_error', code: 'server_error', param: null } };
      expectObservable(cold('a-#', { a }, err).pipe(toChatSSE({ onError: 'event' }))).toBe('a-(e|)', { a: data(a), e: data(e) });
    });
  });

  it('unsubscribes from the source when unsubscribed, without writing [DONE]', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-b-c|', { a, b, c });
      expectObservable(src.pipe(toChatSSE()), '^--!').toBe('a-b', { a: data(a), b: data(b) });
      expectSubscriptions(src.subscriptions).toBe('^--!');
    });
  });
});
