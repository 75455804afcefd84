// Paths read one way only (issue 24): a path spelled so that a front, the gateway and the upstream could read it
// differently (repeated slashes, dot segments, encoded separators and dots, backslashes) must not skip the owner
// check. Bob, with alice's id in any spelling, gets what an unknown id gets and nothing reaches the upstream;
// alice, with the same spellings, reaches her response, and the upstream gets the normalised path.
import { expectSameAsUnknown, call, rawCall, startGatewayProcess, startRecordingUpstream, type GatewayProcess, type RecordingUpstream } from './harness';
import { organisationScript } from './upstream-scripts';

jest.setTimeout(60_000);

let upstream: RecordingUpstream;
let gateway: GatewayProcess;
let aliceResponse = '';
let aliceConversation = '';
const UNKNOWN = 'resp_doesnotexist0000';
const UNKNOWN_CONVERSATION = 'conv_doesnotexist0000';

beforeAll(async () => {
  upstream = await startRecordingUpstream(organisationScript().script);
  gateway = await startGatewayProcess({ upstream: upstream.baseURL, extra: { timeouts: { notFoundMs: 200 } } });
  const created = await call(gateway.origin, 'alice', 'POST', '/v1/responses', { model: 'fake-model', input: 'Hi', background: true });
  aliceResponse = /"id":"(resp_[^"]+)"/.exec(created.text)![1]!;
  aliceConversation = /"id":"(conv_[^"]+)"/.exec((await call(gateway.origin, 'alice', 'POST', '/v1/conversations', {})).text)![1]!;
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** Spellings of the routes that name a response, `{id}` standing for it. */
const RESPONSE_PATHS: Array<[string, string]> = [
  ['GET', '/v1//responses/{id}'],
  ['GET', '/v1/responses//{id}'],
  ['GET', '//v1/responses/{id}/'],
  ['GET', '/v1/./responses/{id}'],
  ['GET', '/v1/x/../responses/{id}'],
  ['GET', '/v1/responses/x/../{id}'],
  ['GET', '/v1\\responses\\{id}'],
  ['GET', '/v1/%72esponses/{id}'],
  ['GET', '/v1//responses/{id}?stream=true'],
  ['DELETE', '/v1//responses//{id}'],
  ['POST', '/v1//responses/{id}//cancel'],
  ['POST', '/v1/responses/{id}/./cancel'],
  ['GET', '/v1/responses//{id}//input_items'],
];

/** Spellings no route may take: refused whatever the id. */
const UNREADABLE_PATHS: Array<[string, string]> = [
  ['POST', '/v1/responses/{id}%2Fcancel'],
  ['POST', '/v1/responses/{id}%2fcancel'],
  ['POST', '/v1/responses/{id}%5Ccancel'],
  ['GET', '/v1/responses/{id}%2F..%2F..%2Ffiles'],
  ['GET', '/v1/responses/%2E%2E/files'],
  ['GET', '/v1/responses/%2e%2e/%2e%2e/files'],
  ['GET', '/v1/responses/{id}/..%2F..%2Ffiles'],
  ['GET', '/v1/responses/{id}%00'],
  ['GET', '/v1/responses/{id}%252Fcancel'],
  ['GET', '/v1/../v1/responses/{id}'],
  ['GET', '/v1/responses/{id}/../../../files'],
  ['GET', '/v1/conversations/{conv}%2Fitems'],
];

const fill = (path: string, id: string, conv = UNKNOWN_CONVERSATION): string => path.replace('{id}', id).replace('{conv}', conv);

describe('bob, with alice\'s response id in any spelling', () => {
  it.each(RESPONSE_PATHS)('%s %s: the unknown id\'s answer, nothing forwarded', async (method, path) => {
    const before = upstream.requests.length;
    const theirs = await rawCall(gateway.origin, 'bob', method, fill(path, aliceResponse));
    const none = await rawCall(gateway.origin, 'bob', method, fill(path, UNKNOWN));
    expect(upstream.requests.slice(before)).toEqual([]);
    expect(theirs.status).toBe(404);
    expectSameAsUnknown(theirs, none, { attacked: aliceResponse, unknown: UNKNOWN });
  });

  it.each(UNREADABLE_PATHS)('%s %s: refused for anyone, nothing forwarded', async (method, path) => {
    const before = upstream.requests.length;
    for (const user of ['bob', 'alice'] as const) {
      const theirs = await rawCall(gateway.origin, user, method, fill(path, aliceResponse, aliceConversation));
      const none = await rawCall(gateway.origin, user, method, fill(path, UNKNOWN));
      expect([user, theirs.status]).toEqual([user, 404]);
      expectSameAsUnknown(theirs, none, { attacked: aliceResponse, unknown: UNKNOWN });
    }
    expect(upstream.requests.slice(before)).toEqual([]);
  });

  it('a conversation\'s routes, spelled oddly: the unknown id\'s answer, nothing forwarded', async () => {
    for (const [method, path] of [['GET', '/v1//conversations/{c}'], ['GET', '/v1/conversations//{c}//items'], ['DELETE', '/v1/./conversations/{c}/items/msg_1/']] as const) {
      const before = upstream.requests.length;
      const theirs = await rawCall(gateway.origin, 'bob', method, path.replace('{c}', aliceConversation));
      const none = await rawCall(gateway.origin, 'bob', method, path.replace('{c}', UNKNOWN_CONVERSATION));
      expect(upstream.requests.slice(before)).toEqual([]);
      expectSameAsUnknown(theirs, none, { attacked: aliceConversation, unknown: UNKNOWN_CONVERSATION });
    }
  });
});

describe('alice, with the same spellings', () => {
  it.each(RESPONSE_PATHS.filter(([m, p]) => m === 'GET' && !p.includes('stream')))('%s %s reaches her response; the upstream gets the normalised path', async (method, path) => {
    const before = upstream.requests.length;
    const mine = await rawCall(gateway.origin, 'alice', method, fill(path, aliceResponse));
    expect(mine.status).toBe(200);
    const sent = upstream.requests.slice(before).map((q) => `${q.method} ${q.url}`);
    const tail = path.endsWith('input_items') ? '/input_items' : '';
    expect(sent).toEqual([`GET /v1/responses/${aliceResponse}${tail}`]);
  });
});
