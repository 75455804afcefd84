// A slow asynchronous consumer of a fast stream: `bufferLimit` bounds what waits for it, ending the stream
// (and its connection) with LimitExceededError('maxQueue') instead of growing memory; a bound the consumer
// stays within changes nothing.
import { lastValueFrom, timer, map, toArray } from 'rxjs';
import { fromResponsesSSE, LimitExceededError, ofType, streamResponse } from '../../index.js';
import { bufferLimit } from '../../operators';
import { startTestServer } from '../../testing';
import { fixture } from '../helpers/fixtures';
import { runSync } from './harness';

const sse = fixture('long-text');
const deltas = runSync(fromResponsesSSE(sse).pipe(ofType('response.output_text.delta'))).values.map((e) => e.delta);

test('a consumer slower than the server: LimitExceededError(maxQueue) at the bound, and the connection closes', async () => {
  expect(deltas.length).toBeGreaterThan(100);
  const server = await startTestServer({ transcripts: { t: sse } });
  try {
    let handled = 0;
    const err = await lastValueFrom(
      streamResponse({ model: 't' }, { baseURL: server.baseURL, apiKey: 'k' }).pipe(
        ofType('response.output_text.delta'),
        bufferLimit(16, (e) => timer(5).pipe(map(() => (handled++, e.delta)))),
        toArray(),
      ),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitExceededError);
    expect(err).toMatchObject({ limit: 'maxQueue', max: 16 });
    expect(handled).toBeLessThan(deltas.length);
    expect((await server.waitForClose(0)).outcome).toMatch(/client-closed|completed/);
  } finally {
    await server.close();
  }
});

test('a bound the consumer stays within: every delta handled once, in order', async () => {
  const server = await startTestServer({ transcripts: { t: sse } });
  try {
    const got = await lastValueFrom(
      streamResponse({ model: 't' }, { baseURL: server.baseURL, apiKey: 'k' }).pipe(
        ofType('response.output_text.delta'),
        bufferLimit(deltas.length, (e) => Promise.resolve(e.delta)),
        toArray(),
      ),
    );
    expect(got).toEqual(deltas);
  } finally {
    await server.close();
  }
});
