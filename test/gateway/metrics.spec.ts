// GET /metrics as docs/gateway.md lists it: streams in flight (client streams, upstream streams recorded),
// events written (in all, and per second over the last 10 s), the log's lag and append latency, error answers
// by status, uptime. Watched, not timed: the loops end when the figure shows (or the test's timeout fails it).
import { startHarness, words, type Harness } from './helpers';

jest.setTimeout(60_000);

let h: Harness;
let release!: () => void;
beforeAll(async () => {
  h = await startHarness({ provider: { answer: words(30), hold: new Promise<void>((r) => (release = r)) } });
});
afterAll(async () => {
  release();
  await h.close();
});

const metrics = async (): Promise<Record<string, unknown>> => (await (await fetch(`${h.origin}/metrics`)).json()) as Record<string, unknown>;
const KEY = 'sk-test-metrics-0000';

it('counts streams in flight, events written and per second, append latency, error answers by status', async () => {
  expect(await metrics()).toEqual({
    streams: { clients: 0, producers: 0 },
    events: { total: 0, perSecond: 0 },
    log: { appendsInFlight: 0, lagMs: 0, appendMsAvg: 0, appendMsLast: 0, errors: 0 },
    errors: {},
    uptimeSeconds: expect.any(Number),
  });
  // One stream held upstream after its first event: in flight on both sides.
  const res = await fetch(`${h.baseURL}/responses`, {
    method: 'POST', body: JSON.stringify({ model: 'fake-model', input: 'Hi', stream: true }),
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
  });
  expect(res.status).toBe(200);
  while (((await metrics())['events'] as { total: number }).total < 1) await new Promise((r) => setTimeout(r, 10));
  expect((await metrics())['streams']).toEqual({ clients: 1, producers: 1 });
  release();
  const text = await res.text();
  const sent = (text.match(/^id: /gm) ?? []).length;
  expect(sent).toBeGreaterThan(30);
  await fetch(`${h.baseURL}/responses`, { method: 'POST', body: '{', headers: { authorization: `Bearer ${KEY}` } }); // a 400
  await fetch(`${h.baseURL}/responses`, { method: 'POST', body: '{}' }); // a 401
  // The per-second figure covers whole seconds: it shows once the second of the stream has turned.
  while (((await metrics())['events'] as { perSecond: number }).perSecond === 0) await new Promise((r) => setTimeout(r, 100));
  const m = await metrics();
  expect(m['streams']).toEqual({ clients: 0, producers: 0 });
  const events = m['events'] as { total: number; perSecond: number };
  expect(events.total).toBe(sent);
  // Events of the seconds turned so far, over the 10 s window (a stream that straddled a second shows part of it until the next turn).
  expect(events.perSecond).toBeGreaterThan(0);
  expect(events.perSecond).toBeLessThanOrEqual(sent / 10);
  const log = m['log'] as Record<string, number>;
  expect(log['appendsInFlight']).toBe(0);
  expect(log['lagMs']).toBe(0);
  expect(log['errors']).toBe(0);
  expect(log['appendMsAvg']).toBeGreaterThanOrEqual(0);
  expect(m['errors']).toEqual({ '400': 1, '401': 1 });
});
