// Tenants apart (issue 24): every response or conversation id a request can name, in a body or a path, is
// answered only for the owner it was recorded for. Bob naming alice's id gets exactly what an unknown id gets,
// and the upstream (shared key: it cannot tell them apart) receives nothing for it. Alice's own requests work.
import { call, expectSameAsUnknown, startGatewayProcess, startRecordingUpstream, type GatewayProcess, type RecordingUpstream } from './harness';
import { organisationScript } from './upstream-scripts';

jest.setTimeout(60_000);

let upstream: RecordingUpstream;
let gateway: GatewayProcess;
/** Alice's ids, one of each way the gateway records them. */
const alice = { streamed: '', plain: '', background: '', conversation: '', madeByResponse: '' };
const UNKNOWN_RESPONSE = 'resp_doesnotexist0000';
const UNKNOWN_CONVERSATION = 'conv_doesnotexist0000';

const idOf = (text: string): string => /"id":"((?:resp|conv)_[^"]+)"/.exec(text)![1]!;

beforeAll(async () => {
  const org = organisationScript();
  upstream = await startRecordingUpstream(org.script);
  gateway = await startGatewayProcess({ upstream: upstream.baseURL, extra: { timeouts: { notFoundMs: 200 } } });
  const g = gateway.origin;
  alice.streamed = idOf((await call(g, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi', stream: true })).text);
  alice.plain = idOf((await call(g, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi' })).text);
  alice.background = idOf((await call(g, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi', background: true })).text);
  alice.conversation = idOf((await call(g, 'alice', 'POST', '/v1/conversations', { metadata: { topic: 'x' } })).text);
  const made = await call(g, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'answer-with-conversation' });
  alice.madeByResponse = /"conversation":\{"id":"([^"]+)"/.exec(made.text)![1]!;
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** Bob's request naming alice's id against the same request naming an unknown id: the same answer, nothing upstream. */
async function attack(make: (id: string) => Promise<{ status: number; text: string }>, attacked: string, unknown: string): Promise<void> {
  const before = upstream.requests.length;
  const theirs = await make(attacked);
  const none = await make(unknown);
  expect(upstream.requests.slice(before)).toEqual([]);
  expect(theirs.status).toBeGreaterThanOrEqual(400);
  expectSameAsUnknown(theirs, none, { attacked, unknown });
}

const responseIds = (): Array<[string, string]> => [['streamed', alice.streamed], ['non-streamed', alice.plain], ['background', alice.background]];
const conversationIds = (): Array<[string, string]> => [['created', alice.conversation], ['made by a response create', alice.madeByResponse]];

describe('a body naming another owner\'s response', () => {
  const creates: Array<[string, (id: string) => Record<string, unknown>]> = [
    ['streamed create', (id) => ({ model: 'fake-model', input: 'Go on', stream: true, previous_response_id: id })],
    ['non-streamed create', (id) => ({ model: 'fake-model', input: 'Go on', previous_response_id: id })],
    ['background create', (id) => ({ model: 'fake-model', input: 'Go on', background: true, previous_response_id: id })],
    ['response_id spelling', (id) => ({ model: 'fake-model', input: 'Go on', response_id: id })],
  ];
  it.each(creates)('POST /v1/responses, %s: the unknown id\'s 404, nothing forwarded', async (_, body) => {
    for (const [, id] of responseIds()) {
      await attack((x) => call(gateway.origin, 'bob', 'POST', '/v1/responses', body(x)), id, UNKNOWN_RESPONSE);
    }
  });

  it.each([
    ['POST', '/v1/chat/completions', (id: string) => ({ model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }], stream: true, previous_response_id: id })],
    ['POST', '/v1/chat/completions', (id: string) => ({ model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }], previous_response_id: id })],
    ['POST', '/v1/responses/input_tokens', (id: string) => ({ model: 'fake-model', input: 'Hi', previous_response_id: id })],
    ['POST', '/v1/responses/compact', (id: string) => ({ model: 'fake-model', previous_response_id: id })],
  ])('%s %s: the unknown id\'s 404, nothing forwarded', async (method, path, body) => {
    await attack((x) => call(gateway.origin, 'bob', method, path, body(x)), alice.streamed, UNKNOWN_RESPONSE);
  });

  it('however the JSON spells it: escapes, duplicate keys (the last one counts, and only it is forwarded)', async () => {
    const escaped = (id: string) => `{"model":"fake-model","input":"Hi","previous_\\u0072esponse_id":"${id}"}`;
    await attack((x) => call(gateway.origin, 'bob', 'POST', '/v1/responses', escaped(x)), alice.plain, UNKNOWN_RESPONSE);
    const bobs = idOf((await call(gateway.origin, 'bob', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi' })).text);
    const twice = (id: string) => `{"model":"fake-model","input":"Hi","previous_response_id":"${bobs}","previous_response_id":"${id}"}`;
    await attack((x) => call(gateway.origin, 'bob', 'POST', '/v1/responses', twice(x)), alice.plain, UNKNOWN_RESPONSE);
    // His own id last: allowed, and the upstream reads his id only (the body is the one checked, serialised again).
    const before = upstream.requests.length;
    const r = await call(gateway.origin, 'bob', 'POST', '/v1/responses', `{"model":"fake-model","input":"Hi","previous_response_id":"${alice.plain}","previous_response_id":"${bobs}"}`);
    expect(r.status).toBe(200);
    const sent = upstream.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).not.toContain(alice.plain);
    expect(JSON.parse(sent[0]!.body)).toMatchObject({ previous_response_id: bobs });
  });

  it('a __proto__ key (its fields the body\'s own to an upstream that merges it) is a 400, never forwarded', async () => {
    const before = upstream.requests.length;
    const r = await call(gateway.origin, 'bob', 'POST', '/v1/responses', `{"model":"fake-model","input":"Hi","__proto__":{"previous_response_id":"${alice.plain}"}}`);
    expect(r.status).toBe(400);
    expect(upstream.requests.slice(before)).toEqual([]);
  });

  it('an id that is not a string is a 400, never forwarded', async () => {
    const before = upstream.requests.length;
    for (const v of [[alice.plain], { id: alice.plain }, 42]) {
      const r = await call(gateway.origin, 'bob', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi', previous_response_id: v });
      expect(r.status).toBe(400);
    }
    expect(upstream.requests.slice(before)).toEqual([]);
  });
});

describe('a body naming another owner\'s conversation', () => {
  const shapes: Array<[string, (id: string) => Record<string, unknown>]> = [
    ['conversation: id', (id) => ({ model: 'fake-model', input: 'Hi', conversation: id })],
    ['conversation: { id }', (id) => ({ model: 'fake-model', input: 'Hi', conversation: { id } })],
    ['conversation_id', (id) => ({ model: 'fake-model', input: 'Hi', conversation_id: id })],
    ['streamed, conversation: { id }', (id) => ({ model: 'fake-model', input: 'Hi', stream: true, conversation: { id } })],
    ['background', (id) => ({ model: 'fake-model', input: 'Hi', background: true, conversation: id })],
  ];
  it.each(shapes)('POST /v1/responses, %s: the unknown id\'s 404, nothing forwarded', async (_, body) => {
    for (const [, id] of conversationIds()) {
      await attack((x) => call(gateway.origin, 'bob', 'POST', '/v1/responses', body(x)), id, UNKNOWN_CONVERSATION);
    }
  });

  it('POST /v1/responses/input_tokens and /v1/chat/completions name it too', async () => {
    await attack((x) => call(gateway.origin, 'bob', 'POST', '/v1/responses/input_tokens', { model: 'fake-model', conversation: x }), alice.conversation, UNKNOWN_CONVERSATION);
    await attack((x) => call(gateway.origin, 'bob', 'POST', '/v1/chat/completions', { model: 'fake-model', messages: [], conversation: x }), alice.conversation, UNKNOWN_CONVERSATION);
  });
});

describe('a query naming another owner\'s id (a lenient upstream may read it as the body\'s)', () => {
  it.each([
    ['POST', '/v1/responses?previous_response_id={id}', { model: 'fake-model', input: 'Hi' }],
    ['POST', '/v1/responses?stream=true&response_id={id}', { model: 'fake-model', input: 'Hi', stream: true }],
    ['POST', '/v1/chat/completions?previous_response_id=x&previous_response_id={id}', { model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }] }],
    ['GET', '/v1/models?previous_response_id[0]={id}', undefined],
  ] as const)('%s %s: the unknown id\'s 404, nothing forwarded', async (method, path, body) => {
    await attack((x) => call(gateway.origin, 'bob', method, path.replace('{id}', x), body), alice.plain, UNKNOWN_RESPONSE);
  });

  it('a conversation named in the query, on a route of bob\'s own', async () => {
    const bobs = /"id":"(conv_[^"]+)"/.exec((await call(gateway.origin, 'bob', 'POST', '/v1/conversations', {})).text)![1]!;
    await attack((x) => call(gateway.origin, 'bob', 'GET', `/v1/conversations/${bobs}/items?conversation[id]=${x}`), alice.conversation, UNKNOWN_CONVERSATION);
    expect((await call(gateway.origin, 'alice', 'GET', `/v1/models?conversation=${alice.conversation}`)).status).toBe(200);
  });
});

describe('an item reference (the upstream resolves it organisation-wide; the gateway records no item ids)', () => {
  const refs: Array<[string, string, (id: string) => Record<string, unknown>]> = [
    ['POST', '/v1/responses', (id) => ({ model: 'fake-model', input: [{ type: 'item_reference', id }] })],
    ['POST', '/v1/responses', (id) => ({ model: 'fake-model', stream: true, input: [{ role: 'user', content: 'Hi' }, { id }] })],
    ['POST', '/v1/responses/input_tokens', (id) => ({ model: 'fake-model', input: [{ type: 'item_reference', id }] })],
    ['POST', '/v1/conversations', (id) => ({ items: [{ type: 'item_reference', id }] })],
  ];
  it.each(refs)('%s %s: the unknown item\'s 404 for anyone, nothing forwarded', async (method, path, body) => {
    const before = upstream.requests.length;
    for (const user of ['bob', 'alice'] as const) {
      const theirs = await call(gateway.origin, user, method, path, body('msg_of_alice_0001'));
      const none = await call(gateway.origin, user, method, path, body('msg_doesnotexist'));
      expect(theirs.status).toBe(404);
      expectSameAsUnknown(theirs, none, { attacked: 'msg_of_alice_0001', unknown: 'msg_doesnotexist' });
    }
    expect(upstream.requests.slice(before)).toEqual([]);
  });

  it('an input item with its content and an id is no reference: it goes upstream', async () => {
    const r = await call(gateway.origin, 'bob', 'POST', '/v1/responses', {
      model: 'fake-model',
      input: [{ id: 'msg_1', role: 'user', content: 'Hi' }, { type: 'message', id: 'msg_2', role: 'assistant', content: [{ type: 'output_text', text: 'Hello' }] }],
    });
    expect(r.status).toBe(200);
  });
});

describe('a path naming another owner\'s id', () => {
  const responseRoutes: Array<[string, (id: string) => string]> = [
    ['GET', (id) => `/v1/responses/${id}`],
    ['GET', (id) => `/v1/responses/${id}?stream=true`],
    ['GET', (id) => `/v1/responses/${id}?stream=true&starting_after=0`],
    ['DELETE', (id) => `/v1/responses/${id}`],
    ['POST', (id) => `/v1/responses/${id}/cancel`],
    ['GET', (id) => `/v1/responses/${id}/input_items`],
  ];
  it.each(responseRoutes.map(([m, p]) => [`${m} ${p('{id}')}`, m, p] as const))('%s: the unknown id\'s 404, nothing forwarded', async (_, method, path) => {
    for (const [, id] of responseIds()) await attack((x) => call(gateway.origin, 'bob', method, path(x)), id, UNKNOWN_RESPONSE);
  });

  // Every row names its body (undefined too): a row shorter than the test's parameters makes jest pass `done`.
  const conversationRoutes: Array<[string, (id: string) => string, unknown]> = [
    ['GET', (id) => `/v1/conversations/${id}`, undefined],
    ['POST', (id) => `/v1/conversations/${id}`, { metadata: { taken: 'yes' } }],
    ['DELETE', (id) => `/v1/conversations/${id}`, undefined],
    ['GET', (id) => `/v1/conversations/${id}/items`, undefined],
    ['POST', (id) => `/v1/conversations/${id}/items`, { items: [{ type: 'message', role: 'user', content: 'Hi' }] }],
    ['GET', (id) => `/v1/conversations/${id}/items/msg_1`, undefined],
    ['DELETE', (id) => `/v1/conversations/${id}/items/msg_1`, undefined],
  ];
  it.each(conversationRoutes.map(([m, p, b]) => [`${m} ${p('{id}')}`, m, p, b] as const))('%s: the unknown id\'s 404, nothing forwarded', async (_, method, path, body) => {
    for (const [, id] of conversationIds()) await attack((x) => call(gateway.origin, 'bob', method, path(x), body), id, UNKNOWN_CONVERSATION);
  });
});

describe('the owner', () => {
  it('continues each of her responses, in each way a create can go', async () => {
    for (const [, id] of responseIds()) {
      for (const extra of [{ stream: true }, {}, { background: true }]) {
        const r = await call(gateway.origin, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Go on', previous_response_id: id, ...extra });
        expect([id, extra, r.status]).toEqual([id, extra, 200]);
      }
    }
  });

  it('reaches her responses and conversations on every route, the upstream getting the normalised request', async () => {
    for (const [method, path] of [['GET', `/v1/responses/${alice.plain}`], ['GET', `/v1/responses/${alice.plain}/input_items`], ['DELETE', `/v1/responses/${alice.background}`]] as const) {
      const before = upstream.requests.length;
      const r = await call(gateway.origin, 'alice', method, path);
      expect([method, path, r.status]).toEqual([method, path, 200]);
      expect(upstream.requests.slice(before).map((q) => `${q.method} ${q.url}`)).toEqual([`${method} ${path}`]);
    }
    for (const id of [alice.conversation, alice.madeByResponse]) {
      expect((await call(gateway.origin, 'alice', 'GET', `/v1/conversations/${id}`)).status).toBe(200);
      expect((await call(gateway.origin, 'alice', 'POST', `/v1/conversations/${id}/items`, { items: [] })).status).toBe(200);
      expect((await call(gateway.origin, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi', conversation: { id } })).status).toBe(200);
    }
  });
});
