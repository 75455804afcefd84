// The upstream key never reaches a client. An upstream that echoes it (the API's 401 "Incorrect API key provided:
// sk-proj-****abcd", the key whole, as a bearer token, cut into pieces, in headers) is answered on every route the
// gateway serves, in success bodies and error bodies, in one piece and cut across chunks; the client must get no
// run of 8 of the key's secret characters anywhere: status line, header names and values, body.
import { fragmentIn } from '../../reliability/leaks';
import { auth, SHARED_KEY, startGatewayProcess, startRecordingUpstream, type GatewayProcess, type RecordedRequest, type RecordingUpstream, type ScriptedAnswer } from './harness';

const SECRET = SHARED_KEY.slice('sk-proj-'.length);
const STARRED = `sk-proj-${'*'.repeat(36)}${SHARED_KEY.slice(-4)}`;
/** Every way an upstream has been seen to echo a key, in one message. */
const ECHO =
  `Incorrect API key provided: ${STARRED}. You can find your API key at https://platform.openai.com/account/api-keys. ` +
  `Sent: ${SHARED_KEY}; as Bearer ${SHARED_KEY}; in part ${SECRET.slice(3, 21)} and …${SHARED_KEY.slice(-12)}; next line\n${SHARED_KEY}`;

/** Headers an upstream might echo credentials in: only the allow-listed ones may come back, masked. */
const ECHO_HEADERS: Record<string, string> = {
  'x-request-id': `req_${SECRET.slice(0, 20)}`,
  'openai-processing-ms': '12',
  'x-ratelimit-remaining-requests': '99',
  'x-ratelimit-echo': `Bearer ${SHARED_KEY}`,
  'www-authenticate': `Bearer realm="openai", error="invalid_token", token="${SHARED_KEY}"`,
  'set-cookie': `session=${SECRET}; Path=/`,
  'x-echo-authorization': `Bearer ${SHARED_KEY}`,
  'openai-organization': 'org-of-the-operator',
};
const DROPPED = ['www-authenticate', 'set-cookie', 'x-echo-authorization', 'openai-organization'];

const json = (status: number, value: unknown): ScriptedAnswer => ({ status, headers: ECHO_HEADERS, body: JSON.stringify(value) });
const apiError = (): ScriptedAnswer => json(401, { error: { message: ECHO, type: 'invalid_request_error', param: `Bearer ${SHARED_KEY}`, code: 'invalid_api_key' } });
const sse = (...events: object[]): ScriptedAnswer => ({
  status: 200,
  headers: { ...ECHO_HEADERS, 'content-type': 'text/event-stream' },
  body: events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join(''),
});

/** A stream whose success events quote the key: the created response, a delta, the completed response. */
function sseEcho(): ScriptedAnswer {
  const response = { id: 'resp_sse_echo', object: 'response', status: 'in_progress', instructions: ECHO, output: [] };
  const item = { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: ECHO, annotations: [] }] };
  return sse(
    { type: 'response.created', sequence_number: 0, response },
    { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { ...item, status: 'in_progress', content: [] } },
    { type: 'response.output_text.delta', sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0, delta: ECHO },
    { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item },
    { type: 'response.completed', sequence_number: 4, response: { ...response, status: 'completed', output: [item] } },
  );
}

/** A large listing with the key in it many times, in chunks cut inside the key (a passed-through route). */
function bigListing(): ScriptedAnswer {
  const item = (i: number): string => JSON.stringify({ id: `file-${i}`, object: 'file', purpose: 'assistants', filename: `notes-${i}.txt`, note: i % 50 === 0 ? ECHO : 'x'.repeat(200) });
  const body = `{"object":"list","data":[${Array.from({ length: 6000 }, (_, i) => item(i)).join(',')}]}`;
  const chunks: string[] = [];
  for (let at = 0, i = 0; at < body.length; i++) {
    // Each cut lands inside a copy of the key when there is one ahead, else about 64 KiB on.
    const next = body.indexOf(SHARED_KEY, at + 1);
    const end = next !== -1 && next - at < 70_000 ? next + 5 + (i % 30) : Math.min(body.length, at + 65_536);
    chunks.push(body.slice(at, end));
    at = end;
  }
  return { status: 200, headers: ECHO_HEADERS, body, chunks };
}

/** Bytes that are no UTF-8 around the key cut in two: what is not masked must come back byte for byte. */
const BINARY: Uint8Array[] = [[0xff, 0xfe, 0x00, 0x80, 0xc3], SHARED_KEY.slice(0, 22), `${SHARED_KEY.slice(22)} \xe9`, [0xf0, 0x9f, 0x98]].map((x) =>
  Uint8Array.from(typeof x === 'string' ? Buffer.from(x, 'latin1') : x),
);

function script(req: RecordedRequest): ScriptedAnswer | undefined {
  const path = req.url.split('?')[0]!;
  const body = (req.body ? JSON.parse(req.body) : {}) as { stream?: boolean; background?: boolean; input?: string };
  if (path === '/v1/responses' && req.method === 'POST') {
    if (body.stream) {
      if (req.body.includes('sse-echo')) return sseEcho();
      if (body.input !== 'sse-error') return apiError();
      return sse({ type: 'response.created', sequence_number: 0, response: { id: 'resp_sse', object: 'response', status: 'in_progress' } }, { type: 'error', sequence_number: 1, code: 'invalid_api_key', message: ECHO, param: null });
    }
    if (body.input === 'fail') return apiError();
    const id = body.background ? 'resp_bg' : 'resp_plain';
    return json(200, { id, object: 'response', status: body.background ? 'queued' : 'completed', background: body.background === true, instructions: ECHO, output: [] });
  }
  if (path === '/v1/conversations' && req.method === 'POST') return json(200, { id: 'conv_echo', object: 'conversation', created_at: 0, metadata: { note: ECHO } });
  if (path === '/v1/models') return json(200, { object: 'list', data: [{ id: 'gpt-echo', object: 'model', owned_by: SHARED_KEY }, { id: ECHO, object: 'model', owned_by: 'system' }] });
  if (path === '/v1/files') return bigListing();
  if (path === '/v1/files/file-1/content') return { status: 200, headers: { ...ECHO_HEADERS, 'content-type': 'application/octet-stream' }, body: '', chunks: BINARY };
  // Every other route: half of them the API's 401, half a success that quotes the key.
  return req.method === 'GET' ? json(200, { id: path.split('/').pop(), object: 'echo', echo: ECHO }) : apiError();
}

let upstream: RecordingUpstream;
let gateway: GatewayProcess;
beforeAll(async () => {
  upstream = await startRecordingUpstream(script);
  gateway = await startGatewayProcess({ upstream: upstream.baseURL, extra: { passThrough: ['GET /v1/files', 'GET /v1/files/*/content'] } });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

interface Got {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Headers;
  readonly bytes: Buffer;
}

async function send(method: string, path: string, body?: unknown): Promise<Got> {
  const res = await fetch(`${gateway.origin}${path}`, {
    method,
    headers: { ...auth('alice'), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, statusText: res.statusText, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Everything the client got, as one text (bytes one latin1 character each: a fragment cannot hide in bad UTF-8). */
function everything(got: Got): string {
  const lines = [`${got.status} ${got.statusText}`];
  got.headers.forEach((v, k) => lines.push(`${k}: ${v}`));
  return `${lines.join('\n')}\n\n${got.bytes.toString('latin1')}`;
}

function expectNoKey(got: Got): void {
  const text = everything(got);
  const piece = fragmentIn(text, SECRET);
  if (piece !== undefined) throw new Error(`${JSON.stringify(piece)} of the key reached the client in ${JSON.stringify(text.slice(Math.max(0, text.indexOf(piece) - 200), text.indexOf(piece) + 100))}`);
  expect(text).not.toContain(SHARED_KEY.slice(-4) + '.');
  expect(text).not.toMatch(/sk-proj-\*/);
  for (const name of DROPPED) expect(got.headers.get(name)).toBeNull();
  const type = got.headers.get('content-type') ?? '';
  if (type.includes('json')) expect(() => JSON.parse(got.bytes.toString('utf8')) as unknown).not.toThrow();
}

/** The route's answer came from the upstream (it did echo): the request reached it, and the client got the masked echo. */
function expectRelayed(got: Got, method: string, path: string, before: number): void {
  const sent = upstream.requests.slice(before).map((r) => `${r.method} ${r.url.split('?')[0]}`);
  expect(sent).toContain(`${method} ${path}`);
  expect(got.bytes.toString('latin1')).toContain('[redacted]');
}

// In order: the creates come first, so that the routes naming their ids are the owner's own.
// Every row has its 4 cells (a body or undefined): with 3, jest would take the 4th parameter for `done`.
const ROUTES: ReadonlyArray<readonly [string, string, string, unknown]> = [
  ['non-streamed create (401)', 'POST', '/v1/responses', { model: 'm', input: 'fail' }],
  ['non-streamed create (200)', 'POST', '/v1/responses', { model: 'm', input: 'ok' }],
  ['background create (401)', 'POST', '/v1/responses', { model: 'm', input: 'fail', background: true }],
  ['background create (200)', 'POST', '/v1/responses', { model: 'm', input: 'ok', background: true }],
  ['retrieve', 'GET', '/v1/responses/resp_plain', undefined],
  ['input items', 'GET', '/v1/responses/resp_plain/input_items', undefined],
  ['delete', 'DELETE', '/v1/responses/resp_plain', undefined],
  ['cancel', 'POST', '/v1/responses/resp_bg/cancel', undefined],
  ['input tokens', 'POST', '/v1/responses/input_tokens', { model: 'm', input: 'x' }],
  ['compact', 'POST', '/v1/responses/compact', { model: 'm', input: 'x' }],
  ['non-streamed chat', 'POST', '/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'x' }] }],
  ['models list', 'GET', '/v1/models', undefined],
  ['models retrieve', 'GET', '/v1/models/gpt-echo', undefined],
  ['conversation create', 'POST', '/v1/conversations', {}],
  ['conversation retrieve', 'GET', '/v1/conversations/conv_echo', undefined],
  ['conversation update', 'POST', '/v1/conversations/conv_echo', { metadata: {} }],
  ['conversation items', 'GET', '/v1/conversations/conv_echo/items', undefined],
  ['conversation item create', 'POST', '/v1/conversations/conv_echo/items', { items: [] }],
  ['conversation item', 'GET', '/v1/conversations/conv_echo/items/msg_1', undefined],
  ['conversation item delete', 'DELETE', '/v1/conversations/conv_echo/items/msg_1', undefined],
  ['conversation delete', 'DELETE', '/v1/conversations/conv_echo', undefined],
  ['passed through: a 2 MB listing cut inside the key', 'GET', '/v1/files', undefined],
];

test.each(ROUTES)('%s: the key echoed in the body and headers never reaches the client', async (_name, method, path, body) => {
  const before = upstream.requests.length;
  const got = await send(method, path, body);
  expectNoKey(got);
  expectRelayed(got, method, path.split('?')[0]!, before);
  // Allow-listed headers come back (masked), the rest does not.
  expect(got.headers.get('x-ratelimit-remaining-requests')).toBe('99');
  expect(got.headers.get('openai-processing-ms')).toBe('12');
  expect(got.headers.get('x-request-id')).toBe('req_[redacted]');
  expect(got.headers.get('x-ratelimit-echo')).toBe('Bearer [redacted]');
}, 60_000);

test('passed through: a binary body cut inside the key comes back masked, every other byte as it was', async () => {
  const got = await send('GET', '/v1/files/file-1/content');
  expectNoKey(got);
  const all = Buffer.concat(BINARY);
  const at = all.indexOf(SHARED_KEY);
  expect(at).toBeGreaterThan(0);
  const expected = `${all.subarray(0, at).toString('latin1')}[redacted]${all.subarray(at + SHARED_KEY.length).toString('latin1')}`;
  expect(got.bytes.toString('latin1')).toBe(expected);
}, 60_000);

test.each([
  ['streamed create, the upstream refusing with the echo', '/v1/responses', { model: 'm', input: 'x', stream: true }],
  ['streamed create, an error event echoing the key', '/v1/responses', { model: 'm', input: 'sse-error', stream: true }],
  ['streamed chat, the upstream refusing with the echo', '/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true }],
  ['streamed create, success events quoting the key', '/v1/responses', { model: 'm', input: 'sse-echo', stream: true }],
  ['streamed chat, success events quoting the key', '/v1/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'sse-echo' }], stream: true }],
])('%s: the key never reaches the client', async (_name, path, body) => {
  const got = await send('POST', path, body);
  expectNoKey(got);
  expect(got.bytes.toString('latin1')).toContain('[redacted]');
}, 60_000);

test('resuming the stream whose events quoted the key: the log holds them masked, the reader gets no key', async () => {
  const got = await send('GET', '/v1/responses/resp_sse_echo?stream=true&starting_after=0');
  expect(got.status).toBe(200);
  expectNoKey(got);
  expect(got.bytes.toString('utf8')).toContain('event: response.completed');
  expect(got.bytes.toString('utf8')).toContain('[redacted]');
}, 60_000);
