// A request that fails before it is sent (a fetch that throws instead of rejecting, a body that is not JSON) is
// raised as it is, not as a retryable NetworkError, and masked like every other error of the transport.
import { NetworkError, streamResponse } from '../../index.js';
import { errorOf, views } from '../reliability/leaks';

const KEY = 'sk-test-SYNC-SECRET-7171';

test('a fetch that throws synchronously, quoting the request headers', async () => {
  const throwingFetch = ((_url: string, init?: RequestInit) => {
    throw new TypeError(`cannot send: ${JSON.stringify(init?.headers)}`);
  }) as unknown as typeof fetch;
  const e = await errorOf(streamResponse({ model: 'm' }, { apiKey: KEY, baseURL: 'http://127.0.0.1:9/v1', fetch: throwingFetch }));
  expect(e).toBeInstanceOf(TypeError);
  expect(String((e as Error).message)).toContain('cannot send');
  expect(views(e).filter((s) => s.includes('SYNC-SECRET'))).toEqual([]);
});

test('a request body that cannot be JSON is a TypeError, and no request is sent', async () => {
  let calls = 0;
  const countingFetch = (async () => {
    calls++;
    throw new Error('not reached');
  }) as unknown as typeof fetch;
  const e = await errorOf(streamResponse({ model: 'm', input: 10n }, { apiKey: KEY, baseURL: 'http://127.0.0.1:9/v1', fetch: countingFetch }));
  expect(e).toBeInstanceOf(TypeError);
  expect(e).not.toBeInstanceOf(NetworkError);
  expect(calls).toBe(0);
});

test('a stream whose fetch threw leaves no listener on the caller signal', async () => {
  const ac = new AbortController();
  const added = jest.spyOn(ac.signal, 'addEventListener');
  const removed = jest.spyOn(ac.signal, 'removeEventListener');
  const throwingFetch = (() => {
    throw new TypeError('cannot send');
  }) as unknown as typeof fetch;
  const e = await errorOf(streamResponse({ model: 'm' }, { apiKey: KEY, baseURL: 'http://127.0.0.1:9/v1', fetch: throwingFetch, signal: ac.signal }));
  expect(e).toBeInstanceOf(TypeError);
  const listeners = added.mock.calls.filter(([type]) => type === 'abort').map(([, fn]) => fn);
  expect(listeners.length).toBeGreaterThan(0);
  for (const fn of listeners) expect(removed.mock.calls.some(([type, f]) => type === 'abort' && f === fn)).toBe(true);
});
