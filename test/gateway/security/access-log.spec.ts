// The access log (issue 24): one JSON line per request on stdout, naming the route by its pattern and the owner
// by a hash, with status, response id, events, duration and bytes; never a key, a user's own name, a raw path
// or a body.
import { call, rawCall, SHARED_KEY, startGatewayProcess, startRecordingUpstream, type GatewayProcess, type RecordingUpstream } from './harness';

jest.setTimeout(60_000);

let upstream: RecordingUpstream;
let gateway: GatewayProcess;
beforeAll(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startGatewayProcess({ upstream: upstream.baseURL, extra: { accessLog: 'stdout' } });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

interface Line {
  time: string;
  method: string;
  route: string | null;
  owner: string | null;
  status: number;
  responseId: string | null;
  events: number;
  durationMs: number;
  bytesOut: number;
}

/** The access log's lines so far (the process prints nothing else as JSON). */
const lines = (): Line[] => gateway.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Line);

/** The line of the `n`th request from now, once written (after the answer ends). */
async function lineAfter(count: number): Promise<Line> {
  for (let i = 0; i < 500 && lines().length <= count; i++) await new Promise((r) => setTimeout(r, 20));
  return lines()[count]!;
}

test('a streamed create: its route, the owner hashed, status, response id, every event, duration and bytes', async () => {
  const n = lines().length;
  const r = await call(gateway.origin, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'a-prompt-nobody-may-log', stream: true });
  const id = /"id":"(resp_[^"]+)"/.exec(r.text)![1]!;
  const line = await lineAfter(n);
  expect(line).toMatchObject({ method: 'POST', route: 'POST /v1/responses', status: 200, responseId: id, events: (r.text.match(/^event: /gm) ?? []).length, bytesOut: Buffer.byteLength(r.text) });
  expect(line.owner).toMatch(/^[0-9a-f]{16}$/);
  expect(Number.isNaN(Date.parse(line.time))).toBe(false);
  expect(line.durationMs).toBeGreaterThanOrEqual(0);
  // The same owner, the same hash; another owner, another.
  const again = lines().length;
  await call(gateway.origin, 'alice', 'GET', `/v1/responses/${id}?stream=true`);
  const resumed = await lineAfter(again);
  expect(resumed).toMatchObject({ route: 'GET /v1/responses/{response_id}', responseId: id, owner: line.owner, status: 200 });
  expect(resumed.events).toBeGreaterThan(0);
  const bobs = lines().length;
  await call(gateway.origin, 'bob', 'GET', `/v1/responses/${id}`);
  expect(await lineAfter(bobs)).toMatchObject({ status: 404, responseId: id });
  expect(lines()[bobs]!.owner).not.toBe(line.owner);
});

test('a non-streamed create names the response it made; an unknown path is no route, its raw path not logged', async () => {
  const n = lines().length;
  const r = await call(gateway.origin, 'bob', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi' });
  expect(await lineAfter(n)).toMatchObject({ route: 'POST /v1/responses', status: 200, responseId: JSON.parse(r.text).id, events: 0 });
  const m = lines().length;
  await rawCall(gateway.origin, 'bob', 'GET', `/v1/files/${SHARED_KEY}?token=${SHARED_KEY}`);
  expect(await lineAfter(m)).toMatchObject({ method: 'GET', route: null, status: 404, responseId: null });
  const o = lines().length;
  await fetch(`${gateway.origin}/v1/models`, { headers: { authorization: `Bearer ${SHARED_KEY}` } }).then((x) => x.text());
  expect(await lineAfter(o)).toMatchObject({ route: 'GET /v1/models', status: 401, owner: null });
});

test('nothing in the log is a key, a credential, a user\'s name, a path or a body', async () => {
  const out = gateway.output();
  for (const secret of [SHARED_KEY, 'user-alice', 'user-bob', '"alice"', '"bob"', 'a-prompt-nobody-may-log', '/v1/files', 'token=']) expect(out).not.toContain(secret);
});
