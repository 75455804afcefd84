// A request that cannot be made says why: NetworkError keeps the cause (ECONNREFUSED, …) in `cause`,
// `errorCode` and its message, without the key. A configuration mistake (an invalid URL, a scheme fetch
// cannot speak) is an InvalidOptionError that no reconnect can fix, so resumeFrom passes it through.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { concat, of, throwError } from 'rxjs';
import { InvalidOptionError, NetworkError, StreamInterruptedError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { retrieveResponseStream, streamResponse } from '../../lib/http/transports';
import { resumeFrom } from '../../operators/resumeFrom';
import { errorOf, expectNoFragment } from '../reliability/leaks';

const KEY = 'sk-proj-Zq7vX2mK9pL4wR8tN3bY6cH1jF5dG0sA';

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

test('connection refused: a retryable NetworkError whose cause, code and message say ECONNREFUSED', async () => {
  const port = await closedPort();
  const e = await errorOf(streamResponse({ model: 'm' }, { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: KEY }));
  expect(e).toBeInstanceOf(NetworkError);
  expect(e).toMatchObject({ retryable: true, errorCode: 'ECONNREFUSED' });
  expect((e as Error).message).toContain('ECONNREFUSED');
  expect((e as Error).message).toContain(`POST http://127.0.0.1:${port}/v1/responses`);
  // The runtime's fetch error (possibly of another realm), with the system error as its own cause.
  expect(Object.prototype.toString.call((e as Error).cause)).toBe('[object Error]');
  expectNoFragment('refused', e, KEY);
});

test("a fetch that quotes the request's headers in its error: the cause is kept, masked", async () => {
  const leaky: typeof fetch = async (_url, init) => {
    throw new TypeError('failed', { cause: new Error(`socket hang up, sent ${JSON.stringify(init?.headers)}`) });
  };
  const e = await errorOf(streamResponse({ model: 'm' }, { baseURL: 'http://127.0.0.1:1/v1', apiKey: KEY, fetch: leaky }));
  expect(e).toBeInstanceOf(NetworkError);
  expect((e as Error).message).toContain('socket hang up');
  expect((e as Error).cause).toBeInstanceOf(TypeError);
  expectNoFragment('leaky fetch', e, KEY);
});

describe('configuration mistakes are InvalidOptionErrors, not retryable', () => {
  test.each([
    ['not a URL', 'api.openai.com/v1'],
    ['an empty string', ''],
    ['an unsupported scheme', 'ftp://127.0.0.1/v1'],
    ['a WebSocket URL', 'ws://127.0.0.1/v1'],
  ])('%s', async (_what, baseURL) => {
    let called = 0;
    const fetchSpy: typeof fetch = async () => {
      called++;
      throw new TypeError('should not be called');
    };
    const e = await errorOf(streamResponse({ model: 'm' }, { baseURL, apiKey: KEY, fetch: fetchSpy }));
    expect(e).toBeInstanceOf(InvalidOptionError);
    expect(e).toMatchObject({ code: 'invalid_option', option: 'baseURL', retryable: false });
    expect(called).toBe(0);
  });

  test('resumeFrom does not retry a reconnect that fails on configuration', async () => {
    const created = { type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [] }, sequence_number: 0 } as unknown as ResponseStreamEvent;
    const source = concat(of(created), throwError(() => new StreamInterruptedError('resp_1', 0)));
    let reconnects = 0;
    const e = await errorOf(
      source.pipe(resumeFrom((c) => (reconnects++, retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, { baseURL: 'ftp://example/v1', apiKey: KEY })), { delayMs: 0, maxAttempts: 5 })),
    );
    expect(e).toBeInstanceOf(InvalidOptionError);
    expect(reconnects).toBe(1);
  });
});
