// Ownership across a fleet (issue 24): two gateway processes sharing one Redis log. What alice creates on one
// instance (a non-streamed response, a conversation) is recorded in the log, so the other instance refuses bob
// exactly as an unknown id, sends nothing upstream, and serves alice.
import { redisForSuite } from '../../log/redis-server';
import { call, expectSameAsUnknown, startGatewayProcess, startRecordingUpstream, type GatewayProcess, type RecordingUpstream } from './harness';
import { organisationScript } from './upstream-scripts';

jest.setTimeout(60_000);

const redis = redisForSuite();
let upstream: RecordingUpstream;
let a: GatewayProcess;
let b: GatewayProcess;

beforeAll(async () => {
  upstream = await startRecordingUpstream(organisationScript().script);
  [a, b] = await Promise.all([
    startGatewayProcess({ upstream: upstream.baseURL, log: redis.server.url }),
    startGatewayProcess({ upstream: upstream.baseURL, log: redis.server.url }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await upstream?.close();
});

test('a response and a conversation created on one instance are alice\'s on the other, and only hers', async () => {
  const response = /"id":"(resp_[^"]+)"/.exec((await call(a.origin, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi' })).text)![1]!;
  const conversation = /"id":"(conv_[^"]+)"/.exec((await call(a.origin, 'alice', 'POST', '/v1/conversations', {})).text)![1]!;
  const before = upstream.requests.length;
  for (const [make, attacked, unknown] of [
    [(id: string) => call(b.origin, 'bob', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi', previous_response_id: id }), response, 'resp_doesnotexist'],
    [(id: string) => call(b.origin, 'bob', 'GET', `/v1/responses/${id}`), response, 'resp_doesnotexist'],
    [(id: string) => call(b.origin, 'bob', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi', conversation: { id } }), conversation, 'conv_doesnotexist'],
    [(id: string) => call(b.origin, 'bob', 'GET', `/v1/conversations/${id}/items`), conversation, 'conv_doesnotexist'],
  ] as const) {
    const theirs = await make(attacked);
    expect(theirs.status).toBe(404);
    expectSameAsUnknown(theirs, await make(unknown), { attacked, unknown });
  }
  expect(upstream.requests.slice(before)).toEqual([]);
  expect((await call(b.origin, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Go on', previous_response_id: response, stream: true })).status).toBe(200);
  expect((await call(b.origin, 'alice', 'GET', `/v1/conversations/${conversation}/items`)).status).toBe(200);
  expect((await call(b.origin, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi', conversation })).status).toBe(200);
});
