// The route table (issue 24): the gateway serves the routes it implements; any other path under /v1 (the
// organisation's files, vector stores, batches, fine-tunes, stored chat completions, a method the gateway does
// not implement on its own routes) is a 404 and never reaches the upstream, unless the operator passes it
// through by pattern — and then only what the pattern names.
import { call, rawCall, startGatewayProcess, startRecordingUpstream, type GatewayProcess, type RecordingUpstream } from './harness';
import { organisationScript } from './upstream-scripts';

jest.setTimeout(60_000);

let upstream: RecordingUpstream;
let closed: GatewayProcess;
let open: GatewayProcess;
let aliceResponse = '';

beforeAll(async () => {
  upstream = await startRecordingUpstream(organisationScript().script);
  [closed, open] = await Promise.all([
    startGatewayProcess({ upstream: upstream.baseURL }),
    startGatewayProcess({ upstream: upstream.baseURL, extra: { passThrough: ['GET /v1/files', 'GET /v1/vector_stores/*', 'GET /v1/*', '* /v1/batches/**'] } }),
  ]);
  const created = await call(closed.origin, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi' });
  aliceResponse = /"id":"(resp_[^"]+)"/.exec(created.text)![1]!;
}, 120_000);
afterAll(async () => {
  await Promise.all([closed?.close(), open?.close()]);
  await upstream?.close();
});

const NOT_SERVED: Array<[string, string]> = [
  ['GET', '/v1/files'],
  ['POST', '/v1/files'],
  ['GET', '/v1/files/file-1/content'],
  ['GET', '/v1/vector_stores'],
  ['POST', '/v1/vector_stores/vs_1/search'],
  ['GET', '/v1/batches'],
  ['GET', '/v1/fine_tuning/jobs'],
  ['POST', '/v1/embeddings'],
  ['GET', '/v1/chat/completions'],
  ['GET', '/v1/chat/completions/chatcmpl-1/messages'],
  ['DELETE', '/v1/models/ft:gpt-4o:org:x'],
  ['GET', '/v1/organization/users'],
  ['PUT', '/v1/responses/{id}'],
  ['PATCH', '/v1/responses/{id}'],
  ['GET', '/v1/responses/{id}/cancel'],
  ['POST', '/v1/responses/{id}/input_items'],
  ['GET', '/v1/responses'],
  ['GET', '/v1/conversations'],
  ['OPTIONS', '/v1/responses'],
  ['GET', '/v1'],
];

describe('without passThrough', () => {
  it.each(NOT_SERVED)('%s %s is a 404 unknown_url for every user, nothing forwarded', async (method, path) => {
    const before = upstream.requests.length;
    for (const user of ['alice', 'bob'] as const) {
      const r = await rawCall(closed.origin, user, method, path.replace('{id}', aliceResponse), method === 'POST' || method === 'PUT' || method === 'PATCH' ? '{}' : undefined);
      expect([user, r.status]).toEqual([user, 404]);
      expect(JSON.parse(r.text)).toMatchObject({ error: { code: 'unknown_url' } });
    }
    expect(upstream.requests.slice(before)).toEqual([]);
  });

  it('the routes it implements are served', async () => {
    expect((await call(closed.origin, 'bob', 'GET', '/v1/models')).status).toBe(200);
    expect((await call(closed.origin, 'bob', 'GET', '/v1/models/fake-model')).status).toBeLessThan(500);
    expect((await call(closed.origin, 'bob', 'POST', '/v1/chat/completions', { model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }] })).status).toBe(200);
  });
});

it('headers that name another method or path (method overrides, original-URL headers) never reach the upstream', async () => {
  const before = upstream.requests.length;
  const overrides = {
    'x-http-method-override': 'DELETE', 'x-http-method': 'DELETE', 'x-method-override': 'DELETE', 'x-original-method': 'DELETE',
    'x-original-url': '/v1/files', 'x-rewrite-url': '/v1/files', 'x-original-uri': '/v1/files', 'x-forwarded-uri': '/v1/files',
    'x-forwarded-path': '/v1/files', 'x-forwarded-prefix': '/v1/files', 'x-envoy-original-path': '/v1/files',
  };
  const r = await fetch(`${closed.origin}/v1/models/fake-model`, { headers: { authorization: 'Bearer user-bob', ...overrides } });
  await r.text();
  const sent = upstream.requests.slice(before);
  expect(sent.map((q) => `${q.method} ${q.url}`)).toEqual(['GET /v1/models/fake-model']);
  for (const name of Object.keys(overrides)) expect([name, sent[0]!.headers[name]]).toEqual([name, undefined]);
});

describe('with passThrough', () => {
  it('forwards exactly what the patterns name, on the normalised path', async () => {
    for (const [method, path, sent] of [
      ['GET', '/v1/files', 'GET /v1/files'],
      ['GET', '/v1//files/', 'GET /v1/files'],
      ['GET', '/v1/vector_stores/vs_1', 'GET /v1/vector_stores/vs_1'],
      ['DELETE', '/v1/batches/b_1/x', 'DELETE /v1/batches/b_1/x'],
    ] as const) {
      const before = upstream.requests.length;
      const r = await rawCall(open.origin, 'bob', method, path);
      expect([path, r.status]).toEqual([path, 200]);
      expect(upstream.requests.slice(before).map((q) => `${q.method} ${q.url}`)).toEqual([sent]);
    }
  });

  it('refuses what they do not name, and never passes through a response or conversation route', async () => {
    const before = upstream.requests.length;
    for (const [method, path] of [
      ['POST', '/v1/files'],
      ['GET', '/v1/vector_stores/vs_1/files'],
      ['POST', '/v1/batches'],
      ['PUT', `/v1/responses/${aliceResponse}`],
      ['GET', '/v1/responses'],
      ['GET', '/v1/conversations'],
      ['GET', `/v1/files/..%2Fresponses%2F${aliceResponse}`],
      ['GET', `/v1/x/../responses/${aliceResponse}/cancel`],
    ] as const) {
      const r = await rawCall(open.origin, 'bob', method, path, method === 'POST' || method === 'PUT' ? '{}' : undefined);
      expect([method, path, r.status]).toEqual([method, path, 404]);
    }
    expect(upstream.requests.slice(before)).toEqual([]);
  });
});
