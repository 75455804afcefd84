// Past `limits.maxPendingBytes`: a starting client that falls that far behind a stream the log no longer records
// ends with a typed `event: error` (client_too_slow) after every whole event it was sent, and what the gateway
// holds for it stays within the bound. One that fell behind while the log still recorded the stream is read back
// from the log; when the log fails after that, it ends with log_unavailable, never in the log's words. The
// client reads nothing until the upstream has finished, and the log fails at a point the test chooses (at an
// append, once the gateway has let the live stream go), so the order of things does not depend on speed.
import type { ServerResponse } from 'node:http';
import { memoryEventLog } from '../../lib/log/memory';
import { startHarness, type Harness } from './helpers';
import { errorEvents, expectNoInternals, frameOf, longAnswer, outageAfter, readAll, servedBy, slowClient, until, type Outage } from './slow-client';

jest.setTimeout(300_000);

const AUTH = 'Bearer sk-test-too-slow-0';
const BOUND = 256 * 1024;
/** What one flush of the pump joins at most before it writes (FLUSH_AT in sse.ts). */
const FLUSH_AT = 16 * 1024;
const answer = longAnswer(24_000);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** Runs one slow client to the end of the upstream stream, then reads it: what it got, and the gateway's side. */
async function run(outage: (served: () => ServerResponse | undefined) => Outage): Promise<{ text: string; frames: string[]; side: ServerResponse; held: number; log: Outage }> {
  let side: ServerResponse | undefined;
  const log = outage(() => side);
  const started = await startHarness({ provider: { answer }, gateway: { log: log.log, limits: { maxPendingBytes: BOUND }, timeouts: { heartbeatMs: 0 } } });
  h = started;
  const served = servedBy(started);
  const res = await slowClient(`${started.baseURL}/responses`, AUTH, { model: 'fake-model', input: 'Hi', stream: true });
  side = served('/v1/responses')[0];
  expect(res.statusCode).toBe(200);
  await until(() => started.provider.responses.size === 1 && started.gateway.metrics().streams.producers === 0, 'the upstream stream to end');
  const held = side!.writableLength;
  const frames = [...started.provider.responses.values()][0]!.events.map(frameOf);
  return { text: await readAll(res), frames, side: side!, held, log };
}

/** The text before its final error event: whole frames of the upstream's events, from the first, in order. Returns how many. */
function wholePrefix(text: string, frames: readonly string[]): number {
  const body = text.slice(0, text.lastIndexOf('event: error\n'));
  let n = 0;
  let at = 0;
  while (at < body.length) {
    expect(body.startsWith(frames[n]!, at)).toBe(true);
    at += frames[n]!.length;
    n++;
  }
  return n;
}

/** The last frame: an error event (no `id:`, so a reconnect resumes after the last real event) numbered one past it. */
function finalError(text: string, sent: number): Record<string, unknown> {
  const last = text.slice(text.lastIndexOf('event: error\n'));
  expect(last).toMatch(/^event: error\ndata: [^\n]+\n\n$/);
  expectNoInternals(last);
  const errors = errorEvents(text);
  expect(errors).toHaveLength(1);
  expect(errors[0]!['sequence_number']).toBe(sent);
  return errors[0]!;
}

it('the log down early, the client further behind than maxPendingBytes: client_too_slow after whole events; the gateway held at most the bound', async () => {
  const { text, frames, side, held, log } = await run(() => outageAfter(memoryEventLog(), 200));
  expect(log.failed).toBe(true);
  // The stream was ended for the client before the upstream ended, holding no more than the bound, one write,
  // one event and the error frame (the rest of the ~10 MB answer was never queued for it).
  expect(side.writableEnded).toBe(true);
  const largest = Math.max(...frames.map((f) => f.length));
  expect(held).toBeLessThanOrEqual(BOUND + FLUSH_AT + 2 * largest + 1024);
  expect(h!.gateway.metrics().streams.clients).toBe(0);
  const sent = wholePrefix(text, frames);
  expect(sent).toBeLessThan(frames.length);
  expect(finalError(text, sent)).toMatchObject({ type: 'error', code: 'client_too_slow' });
});

it.each([
  ['goes down', undefined],
  ['refuses writes only', 'appends' as const],
])('the client past the bound while the log recorded (read back from the log), then the log %s: log_unavailable, no internals', async (_, only) => {
  // The outage begins at the first append after the gateway let the live stream go: the client's socket then
  // holds more than the bound, and keeps it while it reads nothing.
  const { text, frames, log } = await run((side) => outageAfter(memoryEventLog(), Infinity, () => (side()?.writableLength ?? 0) > BOUND, only));
  expect(log.failed).toBe(true);
  const sent = wholePrefix(text, frames);
  expect(sent).toBeLessThan(frames.length);
  expect(finalError(text, sent)).toMatchObject({ type: 'error', code: 'log_unavailable' });
});
