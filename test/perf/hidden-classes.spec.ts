// Objects made per request, per stream or per message share one hidden class (V8's map). In V8 11 (Node 20) an
// object literal that starts with a spread and then adds a property (`{ ...base, extra }`) gets a map of its own:
// a runtime call (~0.5 µs) and some 0.3 KB per object, kept as long as the object, and every read of it misses the
// inline caches. These pin the paths that made one per request or per stream (docs/performance.md, issue 28).
import { setFlagsFromString } from 'node:v8';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { lastValueFrom, toArray } from 'rxjs';
import { callerOf, upstreamConfig } from '../../gateway/auth';
import { requestHeaders } from '../../gateway/forward';
import { resolveOptions } from '../../gateway/options';
import { decodeTyped } from '../../lib/events/decode';
import { send, DEFAULT_POLICY } from '../../lib/durable-streams/responses';
import { streamResponse } from '../../lib/http/transports';
import { scanSSEText, type SSETextMessage } from '../../lib/sse/text';

setFlagsFromString('--allow-natives-syntax');
// eslint-disable-next-line @typescript-eslint/no-implied-eval
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

/** Whether all of `objects` share the last one's map. */
const oneShape = (objects: readonly object[]): boolean => objects.length > 1 && objects.every((o) => haveSameMap(objects[objects.length - 1]!, o));
/** Enough of each: V8 made the first few objects of such a literal in a shared shape, before its cache was set up. */
const N = 40;

const SSE = 'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","status":"in_progress","output":[]}}\n\n';
const DONE = 'event: response.completed\ndata: {"type":"response.completed","sequence_number":1,"response":{"id":"resp_1","status":"completed","output":[]}}\n\n';

test('the probe tells shapes apart', () => {
  expect(haveSameMap({ a: 1 }, { a: 2 })).toBe(true);
  expect(haveSameMap({ a: 1 }, { b: 1 })).toBe(false);
  expect(oneShape([{ a: 1, b: 'x' }, { a: 2, b: 'y' }])).toBe(true);
});

test("an SSE text's messages share one shape", () => {
  const messages: SSETextMessage[] = [];
  scanSSEText(SSE.repeat(N), { onMessage: (m) => messages.push(m) });
  expect(messages).toHaveLength(N);
  expect(oneShape(messages)).toBe(true);
});

test("the transports' requests send headers of one shape", async () => {
  const sent: object[] = [];
  const config = {
    apiKey: 'sk-test-0000000000',
    fetch: ((_url: string, init: RequestInit) => {
      sent.push(init.headers as object);
      return Promise.resolve(new Response(SSE + DONE, { headers: { 'content-type': 'text/event-stream' } }));
    }) as unknown as typeof fetch,
  };
  for (let i = 0; i < N; i++) await lastValueFrom(streamResponse({ model: 'm', input: `hi ${i}` }, config).pipe(toArray()));
  expect(sent).toHaveLength(N);
  expect(oneShape(sent)).toBe(true);
});

test("an undocumented event without a type is named after its event: line, in one shape", () => {
  const events = Array.from({ length: N }, (_, i) => decodeTyped(JSON.parse(`{"n":${i}}`), new Map(), 'strict', 'vendor.ping'));
  expect(events[0]).toEqual({ n: 0, type: 'vendor.ping' });
  expect(oneShape(events)).toBe(true);
});

test("the gateway's callers, upstream configs and forwarded headers have one shape per route", async () => {
  const options = resolveOptions({ upstream: { baseURL: 'http://127.0.0.1:9/v1' } });
  const req = (i: number) => ({ headers: { authorization: `Bearer sk-test-${i}000000000`, 'openai-beta': 'responses=v1', accept: 'text/event-stream' } }) as unknown as IncomingMessage;
  const callers = await Promise.all(Array.from({ length: N }, (_, i) => callerOf(req(i), options)));
  expect(oneShape(callers.map((c) => c.headers))).toBe(true);
  const configs = callers.map((c) => upstreamConfig(c, options, true));
  expect(configs[0]!.keepRawData).toBe(true);
  expect(upstreamConfig(callers[0]!, options).keepRawData).toBe(false);
  expect(oneShape(configs)).toBe(true);
  expect(oneShape(callers.map((c, i) => requestHeaders(req(i), c)))).toBe(true);
});

test("a Durable Streams response's headers have one shape", () => {
  const heads: OutgoingHttpHeaders[] = [];
  const res = { writeHead: (_status: number, h: OutgoingHttpHeaders) => (heads.push(h), { end: () => undefined }) } as unknown as ServerResponse;
  for (let i = 0; i < N; i++) send(res, DEFAULT_POLICY, 200, { 'Stream-Next-Offset': String(i) });
  expect(heads[0]).toMatchObject({ 'Cache-Control': 'no-store', 'Stream-Next-Offset': '0', 'X-Content-Type-Options': 'nosniff' });
  expect(oneShape(heads)).toBe(true);
});
