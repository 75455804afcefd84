// The attack harness itself: a gateway process, two users, a recording upstream. If this fails, the attack
// suites beside it prove nothing.
import { call, SHARED_KEY, startGatewayProcess, startRecordingUpstream, type GatewayProcess, type RecordingUpstream } from './harness';

let upstream: RecordingUpstream;
let gateway: GatewayProcess;
beforeAll(async () => {
  upstream = await startRecordingUpstream();
  gateway = await startGatewayProcess({ upstream: upstream.baseURL });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

test('a user streams a response through the gateway process, which goes upstream with the shared key', async () => {
  const r = await call(gateway.origin, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi', stream: true });
  expect(r.status).toBe(200);
  expect(r.text).toContain('event: response.completed');
  const sent = upstream.requests.filter((q) => q.method === 'POST' && q.url.startsWith('/v1/responses'));
  expect(sent).toHaveLength(1);
  expect(sent[0]!.headers.authorization).toBe(`Bearer ${SHARED_KEY}`);
  expect(r.text).not.toContain(SHARED_KEY);
});

test("the other user does not read that response: the same 404 as an unknown id, nothing sent upstream", async () => {
  const created = await call(gateway.origin, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi', stream: true });
  const id = /"id":"(resp_[^"]+)"/.exec(created.text)![1]!;
  const before = upstream.requests.length;
  const theirs = await call(gateway.origin, 'bob', 'GET', `/v1/responses/${id}`);
  const unknown = await call(gateway.origin, 'bob', 'GET', '/v1/responses/resp_doesnotexist');
  expect(theirs.status).toBe(404);
  expect(unknown.status).toBe(404);
  expect(upstream.requests.length).toBe(before);
  const mine = await call(gateway.origin, 'alice', 'GET', `/v1/responses/${id}`);
  expect(mine.status).toBe(200);
});

test('a caller that is no user is refused', async () => {
  const r = await fetch(`${gateway.origin}/v1/models`, { headers: { authorization: 'Bearer nobody' } });
  expect(r.status).toBe(401);
  await r.text();
});
