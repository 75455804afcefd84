// Takeover over loopback HTTP: a producer records a background stream and "crashes" mid-stream (it stops
// without releasing its lease); a reader with `upstream` waits out the lease, takes it over, continues the
// provider's stream after the last stored event, and the reader's events equal the recording.
import { lastValueFrom, toArray } from 'rxjs';
import { cancelResponse, fromEventLog, memoryEventLog, persistTo, streamResponse } from '../../index';
import { startTestServer } from '../../testing/index';
import { fixture, payloads } from '../helpers/fixtures';
import { crashingView } from './takeover-helpers';

test('a reader takes over a lapsed producer and ends with exactly the recorded events', async () => {
  const sse = fixture('background-queued');
  const recorded = payloads(sse);
  const responseId = (recorded[0]!['response'] as { id: string }).id;
  // The producer's request stalls after 5 events (the stream hangs, as a crashing process would leave it).
  const server = await startTestServer({ transcripts: { bg: sse }, faults: [{ type: 'stall', afterEvents: 5 }] });
  const log = memoryEventLog();
  // The producer's view of the log: its release is lost, as in a crash. Its lease is long while it streams (a
  // busy machine's pause must not lapse it early); at the crash its last renewal is made short (300 ms).
  const crashing = crashingView(log);
  try {
    const config = { baseURL: server.baseURL, apiKey: 'sk-test' };
    const produced: unknown[] = [];
    const producer = streamResponse({ model: 'bg', input: 'hi', background: true }, config)
      .pipe(persistTo(crashing.log, { leaseMs: 60_000, maxBatchDelayMs: 0 }))
      .subscribe((e) => produced.push(e));
    for (let i = 0; i < 6000 && (await log.state({ responseId }))?.lastSequenceNumber !== 4; i++) await new Promise((r) => setTimeout(r, 10));
    producer.unsubscribe(); // the crash: nothing released, the lease lapses on its own
    await log.renew({ responseId }, crashing.token(), 300);
    expect(produced).toEqual(recorded.slice(0, 5));
    const stored = (await log.state({ responseId }))?.lastSequenceNumber;
    expect(stored).toBe(4);

    const read = await lastValueFrom(fromEventLog(log, responseId, { upstream: config, leaseMs: 5000 }).pipe(toArray()));
    expect(read).toEqual(recorded);
    const resumed = server.requests.filter((r) => r.route === 'responses.stream');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.query['starting_after']).toBe('4');
    // The log now holds the whole stream, ended; a second reader replays it from the log alone.
    expect(await log.state({ responseId })).toMatchObject({ lastSequenceNumber: recorded.at(-1)!['sequence_number'], end: 'completed' });
    expect(await lastValueFrom(fromEventLog(log, responseId).pipe(toArray()))).toEqual(recorded);
  } finally {
    await log.close();
    await server.close();
  }
});

test('cancelResponse posts /responses/{id}/cancel upstream and cancels the stream in the log', async () => {
  const log = memoryEventLog();
  const calls: Array<[string, string | undefined]> = [];
  const fetch = (async (url: string, init?: RequestInit) => {
    calls.push([url, init?.method]);
    return new Response('{"id":"resp_1","status":"cancelled"}', { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  try {
    const s = { responseId: 'resp_1', owner: 'u' };
    const { token } = await log.acquire(s, 60_000);
    await log.append(s, token, [payloads(fixture('background-queued'))[0] as never]);
    const reading = lastValueFrom(fromEventLog(log, 'resp_1', { owner: 'u' }).pipe(toArray()));
    await cancelResponse('resp_1', { baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test', fetch }, { log, owner: 'u' });
    expect(calls).toEqual([['http://127.0.0.1:9/v1/responses/resp_1/cancel', 'POST']]);
    expect((await reading).length).toBe(1);
    expect((await log.state(s))?.end).toBe('cancelled');
    await expect(cancelResponse('../x', { fetch }, { log })).rejects.toMatchObject({ name: 'InvalidOptionError' });
    expect(calls).toHaveLength(1);
  } finally {
    await log.close();
  }
});
