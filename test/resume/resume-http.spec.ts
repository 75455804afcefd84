import { lastValueFrom, Observable, tap, toArray } from 'rxjs';
import {
  accumulateResponse, outputText, resumeFrom, resumeFromCursor, retrieveResponseStream, streamResponse,
  type ResponseStreamEvent, type ResponsesStreamConfig, type ResumeCursor,
} from '../../index';
import { parseTranscript, startTestServer, type Fault, type TestServer } from '../../testing/index';
import { fixture, payloads } from '../helpers/fixtures';
import { prng } from '../helpers/prng';

// Over the loopback server: a long response cut at random points, resumed with
// streamResponse(...).pipe(resumeFrom(c => retrieveResponseStream(...))).

const long = fixture('long-text');
const longEvents = payloads(long);
const N = longEvents.length;
const responseId = parseTranscript(long).responseId as string;
const byteEnds: number[] = [];
{
  let total = 0;
  for (const e of parseTranscript(long).events) byteEnds.push((total += Buffer.byteLength(e.raw)));
}

const int = (rand: () => number, lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));

let server: TestServer;
let config: ResponsesStreamConfig;
beforeAll(async () => {
  server = await startTestServer({ transcripts: { long } });
  config = { baseURL: server.baseURL, apiKey: 'sk-test-resume' };
});
afterAll(() => server.close());

const reconnect = (c: ResumeCursor) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config);

/** Runs a stream through outputText and records every event and every text value the UI would show. */
async function run(events$: Observable<ResponseStreamEvent>) {
  const events: ResponseStreamEvent[] = [];
  const texts = await lastValueFrom(events$.pipe(tap((e) => events.push(e)), outputText(), toArray()));
  return { events, texts };
}

function expectNoFlicker(texts: string[]) {
  for (let i = 1; i < texts.length; i++) {
    if (!texts[i]!.startsWith(texts[i - 1]!)) throw new Error(`text went back at value ${i}`);
  }
}

describe('resumeFrom over HTTP', () => {
  let reference: { events: ResponseStreamEvent[]; texts: string[] };
  beforeAll(async () => {
    reference = await run(streamResponse({ model: 'long', input: 'go', background: true }, config));
  });

  test('the uninterrupted run is the whole transcript', () => {
    expect(reference.events).toEqual(longEvents);
    expect(reference.texts.length).toBeGreaterThan(100);
  });

  test('100 seeded random drop points: every sequence number exactly once, in order, and the same final text', async () => {
    const rand = prng(20260918);
    let reconnects = 0;
    for (let i = 0; i < 100; i++) {
      const first = server.requests.length;
      // The first connection breaks after response.created (so the id is known); up to 3 resumes break again anywhere.
      const faults: Fault[] = [
        rand() < 0.5
          ? { type: 'drop', afterEvents: int(rand, 1, N - 1) }
          : { type: 'drop', afterBytes: int(rand, byteEnds[0]! + 1, byteEnds[N - 1]! - 1) },
      ];
      const extra = int(rand, 0, 3);
      for (let k = 0; k < extra; k++) faults.push(rand() < 0.5 ? { type: 'drop', afterEvents: int(rand, 0, 40) } : { type: 'drop', afterBytes: int(rand, 0, 20000) });
      server.inject(...faults);

      // Every other run, the resume asks for a few events it already has (as a server replaying an overlap
      // would send): resumeFrom must drop them.
      const overlap = i % 2 === 0 ? 0 : int(rand, 1, 5);
      const overlapping = (c: ResumeCursor) => {
        const after = c.sequenceNumber - overlap;
        return retrieveResponseStream(c.responseId, after >= 0 ? { startingAfter: after } : {}, config);
      };
      const got = await run(streamResponse({ model: 'long', input: 'go', background: true }, config).pipe(resumeFrom(overlapping, { delayMs: 0 })));

      expect(got.events.map((e) => e.sequence_number)).toEqual(longEvents.map((e) => e['sequence_number']));
      expect(got.events).toEqual(longEvents);
      expectNoFlicker(got.texts);
      expect(got.texts[got.texts.length - 1]).toBe(reference.texts[reference.texts.length - 1]);
      const mine = server.requests.slice(first);
      expect(mine[0]?.route).toBe('responses.create');
      expect(mine.slice(1).every((r) => r.route === 'responses.stream')).toBe(true);
      reconnects += mine.length - 1;
      // A resume that ends before its fault's cut point leaves later faults unused.
      server.clearFaults();
    }
    // Each run was cut at least once; the extra faults add more.
    expect(reconnects).toBeGreaterThanOrEqual(100);
    // 100 long streams with up to 4 reconnects each: ~5 s on a quiet machine, over 20 s at load 16 (no speed is tested).
  }, 240_000);

  test('a 503 on the resume is retried, then the stream goes on', async () => {
    const first = server.requests.length;
    server.inject({ type: 'drop', afterEvents: 57 }, { type: 'status', status: 503 }, { type: 'status', status: 429 });
    const delays: Array<[number, string]> = [];
    const got = await run(
      streamResponse({ model: 'long', input: 'go' }, config).pipe(
        resumeFrom(reconnect, { delayMs: (attempt, err) => (delays.push([attempt, (err as { code: string }).code]), 0) }),
      ),
    );
    expect(got.events).toEqual(longEvents);
    expect(delays).toEqual([[1, 'stream_interrupted'], [2, 'server_is_overloaded'], [3, 'rate_limit_exceeded']]);
    const mine = server.requests.slice(first);
    expect(mine.map((r) => r.status)).toEqual([200, 503, 429, 200]);
    expect(mine.slice(1).map((r) => r.query['starting_after'])).toEqual(['56', '56', '56']);
  });

  test('a 503 on the create itself cannot be resumed (no response id yet) and passes through', async () => {
    const first = server.requests.length;
    server.inject({ type: 'status', status: 503 });
    const err = await lastValueFrom(streamResponse({ model: 'long', input: 'go' }, config).pipe(resumeFrom(reconnect, { delayMs: 0 }))).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'HTTPError', status: 503, retryable: true });
    expect(server.requests.length - first).toBe(1);
  });

  test('after maxAttempts failed resumes the last error passes through', async () => {
    server.inject({ type: 'drop', afterEvents: 10 }, { type: 'status', status: 500 }, { type: 'status', status: 500 });
    const seen: number[] = [];
    const err = await lastValueFrom(
      streamResponse({ model: 'long', input: 'go' }, config).pipe(resumeFrom(reconnect, { delayMs: 0, maxAttempts: 2 }), tap((e) => seen.push(e.sequence_number ?? -1))),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'HTTPError', status: 500 });
    expect(seen).toEqual(longEvents.slice(0, 10).map((e) => e['sequence_number']));
    expect(server.clearFaults()).toBe(0);
  });

  test('a crash mid-stream, then a fresh process resumes from the saved cursor', async () => {
    // Process 1: persists the cursor as it advances, and dies (unsubscribes) while the server is still streaming.
    const first = server.requests.length;
    server.inject({ type: 'stall', afterEvents: 150 });
    let saved = '';
    const seen1: ResponseStreamEvent[] = [];
    await new Promise<void>((resolve) => {
      const sub = streamResponse({ model: 'long', input: 'go', background: true }, config)
        .pipe(resumeFrom(reconnect, { delayMs: 0, onCursor: (c) => (saved = JSON.stringify(c)) }))
        .subscribe((e) => {
          seen1.push(e);
          if (seen1.length === 120) {
            sub.unsubscribe();
            resolve();
          }
        });
    });
    const closed = await server.waitForClose(first);
    expect(closed.outcome).toBe('client-closed');
    expect(JSON.parse(saved)).toEqual({ responseId, sequenceNumber: 119 });

    // Process 2: knows only the saved cursor; the resume itself is cut once more.
    server.inject({ type: 'drop', afterEvents: 30 });
    const cursor = JSON.parse(saved) as ResumeCursor;
    const got = await run(resumeFromCursor(cursor, reconnect, { delayMs: 0 }));
    expect([...seen1, ...got.events]).toEqual(longEvents);
    const resumes = server.requests.slice(first + 1);
    expect(resumes.map((r) => r.query['starting_after'])).toEqual(['119', '149']);

    // The full state in a fresh process: replay from the start (no startingAfter), also resumable.
    const replayed = await lastValueFrom(
      retrieveResponseStream(cursor.responseId, {}, config).pipe(resumeFrom(reconnect, { delayMs: 0 }), accumulateResponse()),
    );
    const direct = await lastValueFrom(streamResponse({ model: 'long', input: 'go' }, config).pipe(accumulateResponse()));
    expect(replayed).toEqual(direct);
  });
});
