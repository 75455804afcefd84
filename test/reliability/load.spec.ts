// Correctness under load (timings and memory are the benchmark's business: `npm run bench -- --only load`
// and `--only lanes`): concurrent SSE streams with random server-side drops resumed by resumeFrom, and 32
// lanes of responses over one WebSocket that the server drops at random, the unfinished requests sent again
// on a new connection. No event is lost or duplicated in any stream or lane.
//
// The counts are small enough for a busy 2-core machine (`../shared/tools/test-under-load.sh`) within the
// explicit bounds below; no assertion depends on speed. LOAD_FULL=1 runs the README's figures (1,000 streams,
// 32 lanes × 50 responses).
import { from, lastValueFrom, map, merge, mergeMap, toArray } from 'rxjs';
import {
  connectResponsesSocket, fromResponsesSSE, isLaneError, laneMux, resumeFrom, retrieveResponseStream, streamResponse,
  WebSocketClosedError, type ResponseStreamEvent, type ResponsesClientEvent,
} from '../../index.js';
import { startResponsesWebSocketServer, startTestServer, type Fault } from '../../testing';
import { fixture } from '../helpers/fixtures';
import { SEED, runSync } from './harness';
import { prng } from '../helpers/prng';

const FULL = process.env['LOAD_FULL'] === '1';
const STREAMS = FULL ? 1000 : 120;
const DROP = FULL ? 0.15 : 0.3;
const LANES = 32;
const PER_LANE = FULL ? 50 : 8;
/** Generous bounds: a correct run takes about 1 s each on an idle machine, a few times that on a busy one. */
const BOUND_MS = FULL ? 300_000 : 120_000;
test(`${STREAMS} concurrent SSE streams, ~${DROP * 100}% dropped at random and resumed: every stream exactly the recording (seed ${SEED})`, async () => {
  const sse = fixture('plain-text');
  const expected = runSync(fromResponsesSSE(sse)).values.map((e) => JSON.stringify(e));
  const random = prng(SEED);
  const server = await startTestServer({
    transcripts: { t: sse },
    faults: (): Fault => (random() < DROP ? { type: 'drop', afterEvents: 1 + Math.floor(random() * (expected.length - 2)) } : { type: 'ok' }),
  });
  try {
    const config = { baseURL: server.baseURL, apiKey: 'k' };
    const N = STREAMS;
    const results = await lastValueFrom(
      from(Array.from({ length: N }, (_, i) => i)).pipe(
        mergeMap(
          (i) =>
            streamResponse({ model: 't', input: `stream ${i}` }, config).pipe(
              resumeFrom((c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config), { delayMs: 1, maxAttempts: 10 }),
              toArray(),
              map((events: ResponseStreamEvent[]) => events.map((e) => JSON.stringify(e))),
            ),
          N,
        ),
        toArray(),
      ),
    );
    expect(results).toHaveLength(N);
    let mismatched = 0;
    for (const r of results) if (r.length !== expected.length || r.some((e, i) => e !== expected[i])) mismatched++;
    expect(mismatched).toBe(0);
    // The faults really happened: many streams were dropped and resumed.
    expect(server.requests.filter((r) => r.outcome === 'dropped').length).toBeGreaterThan(N / 10);
    expect(server.requests.filter((r) => r.route === 'responses.stream').length).toBeGreaterThan(N / 10);
  } finally {
    await server.close();
  }
}, BOUND_MS);

test(`${LANES} lanes × ${PER_LANE} responses over one WebSocket, dropped at random and re-sent on a new connection: none lost or duplicated (seed ${SEED})`, async () => {
  const DELTAS = 4;
  const random = prng(SEED + 1);
  const server = await startResponsesWebSocketServer({ maxInFlight: 16, maxLanes: 32 });
  // Request keys in lane order; a request leaves `pending` only when its response completed.
  const pending = new Map<string, ResponsesClientEvent>();
  for (let j = 0; j < PER_LANE; j++) {
    for (let l = 0; l < LANES; l++) {
      const key = `lane${l}:${j}`;
      pending.set(key, { type: 'response.create', stream_id: `lane${l}`, model: 'm', input: key, metadata: { key, loopback_deltas: String(DELTAS) } } as ResponsesClientEvent);
    }
  }
  const completions = new Map<string, number>();
  const laneOrder = new Map<string, number[]>();
  let completed = 0;
  let connections = 0;
  // Drop the connection after a random number of completions, four times.
  const dropAt = new Set(Array.from({ length: 4 }, () => Math.floor(random() * LANES * PER_LANE * 0.9)));
  try {
    while (pending.size > 0 && connections < 20) {
      connections++;
      const socket = connectResponsesSocket({ url: server.url, apiKey: 'k', heartbeatMs: 0 });
      // The response now running on each lane, and its events so far.
      const running = new Map<string, { key: string; events: ResponseStreamEvent[] }>();
      await new Promise<void>((resolve, reject) => {
        from([...pending.values()])
          .pipe(laneMux(socket))
          .subscribe({
            next(e) {
              if (isLaneError(e)) return; // its request stays pending and is sent again
              const ev = e as ResponseStreamEvent & { stream_id?: string; response?: { metadata?: { key?: string } } };
              const lane = ev.stream_id ?? '';
              if (ev.type === 'response.created') running.set(lane, { key: String(ev.response?.metadata?.key), events: [] });
              const r = running.get(lane);
              if (!r) throw new Error(`event ${ev.type} on lane ${lane} before its response.created`);
              r.events.push(ev);
              if (ev.type !== 'response.completed') return;
              running.delete(lane);
              // Within the response: sequence numbers 0..n-1 once each, the deltas add up to the final text.
              const seqs = r.events.map((x) => x.sequence_number);
              expect(seqs).toEqual(seqs.map((_, i) => i));
              const text = r.events.filter((x) => x.type === 'response.output_text.delta').map((x) => (x as { delta: string }).delta).join('');
              const done = r.events.find((x) => x.type === 'response.output_text.done') as { text: string } | undefined;
              expect(text).toBe(done?.text);
              expect(r.events.filter((x) => x.type === 'response.output_text.delta')).toHaveLength(DELTAS);
              completions.set(r.key, (completions.get(r.key) ?? 0) + 1);
              pending.delete(r.key);
              const [l, j] = r.key.split(':') as [string, string];
              laneOrder.set(l, [...(laneOrder.get(l) ?? []), Number(j)]);
              completed++;
              if (dropAt.has(completed)) server.dropAll();
            },
            // A drop ends the output with WebSocketClosedError (retryable); anything else is a failure.
            error: (e: unknown) => {
              if (e instanceof WebSocketClosedError && e.retryable) resolve();
              else reject(e instanceof Error ? e : new Error(String(e)));
            },
            complete: () => resolve(),
          });
      });
      socket.close();
    }
    expect(pending.size).toBe(0);
    expect(completions.size).toBe(LANES * PER_LANE);
    expect([...completions.values()].every((n) => n === 1)).toBe(true);
    // FIFO per lane, across reconnections.
    for (const order of laneOrder.values()) expect(order).toEqual(order.map((_, i) => i));
    // The drops really happened.
    expect(connections).toBeGreaterThan(1);
  } finally {
    await server.close();
  }
}, BOUND_MS);
