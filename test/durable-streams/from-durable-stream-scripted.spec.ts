import { firstValueFrom, lastValueFrom, toArray } from 'rxjs';
import { fromDurableStream, type FromDurableStreamOptions } from '../../lib/durable-streams/from-durable-stream';
import { AbortedError, DecodeError, DurableStreamError, InvalidOptionError, NetworkError } from '../../lib/errors';

// fromDurableStream against scripted answers: what no real server here does on demand (catch-up in several chunks,
// SSE connections the server closes, 503s and 429s, a 403, answers outside the protocol), and exactly what it asks.

type Answer = Response | Error | ((url: URL, init: RequestInit) => Response | Promise<Response>);

/** A fetch that gives `answers` in order and records each request. */
function scripted(...answers: Answer[]) {
  const requests: Array<{ url: URL; headers: Record<string, string>; signal: AbortSignal }> = [];
  const fetch = (async (input: string, init: RequestInit) => {
    const url = new URL(input);
    requests.push({ url, headers: { ...(init.headers as Record<string, string>) }, signal: init.signal as AbortSignal });
    const a = answers.shift();
    if (a === undefined) throw new Error(`unexpected request ${input}`);
    if (a instanceof Error) throw a;
    return typeof a === 'function' ? a(url, init) : a;
  }) as unknown as typeof globalThis.fetch;
  return { fetch, requests, params: () => requests.map((r) => Object.fromEntries(r.url.searchParams)) };
}

const URL_ = 'http://streams.test/v1/stream/a';
const json = (body: unknown, headers: Record<string, string>, status = 200) =>
  new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const sse = (text: string, headers: Record<string, string> = {}) => new Response(text, { headers: { 'content-type': 'text/event-stream', ...headers } });
const collect = <T>(o: import('rxjs').Observable<T>) => lastValueFrom(o.pipe(toArray()));
const read = (f: typeof fetch, options: FromDurableStreamOptions = {}) => fromDurableStream(URL_, { fetch: f, retry: { delayMs: 1 }, ...options });

describe('fromDurableStream (scripted answers)', () => {
  test('catch-up in several chunks, each request from the last Stream-Next-Offset, query keys in order', async () => {
    const s = scripted(
      json([1, 2], { 'stream-next-offset': 'o2' }),
      json([3], { 'stream-next-offset': 'o3' }),
      json([], { 'stream-next-offset': 'o3', 'stream-up-to-date': 'true' }),
    );
    const out = await collect(fromDurableStream(`${URL_}?zeta=1&alpha=2`, { fetch: s.fetch, live: false }));
    expect(out).toEqual([
      { offset: 'o2', messages: [1, 2] },
      { offset: 'o3', messages: [3] },
    ]);
    expect(s.requests.map((r) => r.url.search)).toEqual(['?alpha=2&offset=-1&zeta=1', '?alpha=2&offset=o2&zeta=1', '?alpha=2&offset=o3&zeta=1']);
  });

  test('long-poll echoes the last cursor; a 204 moves nothing but the cursor; Stream-Closed on a 204 completes', async () => {
    const s = scripted(
      json(['a'], { 'stream-next-offset': 'o1', 'stream-up-to-date': 'true' }),
      json(null, { 'stream-next-offset': 'o1', 'stream-up-to-date': 'true', 'stream-cursor': 'c1' }, 204),
      json(['b'], { 'stream-next-offset': 'o2', 'stream-up-to-date': 'true', 'stream-cursor': 'c2' }),
      json(null, { 'stream-next-offset': 'o2', 'stream-up-to-date': 'true', 'stream-closed': 'TRUE' }, 204),
    );
    expect(await collect(read(s.fetch, { live: 'long-poll' }))).toEqual([
      { offset: 'o1', messages: ['a'] },
      { offset: 'o2', messages: ['b'] },
    ]);
    expect(s.params()).toEqual([{ offset: '-1' }, { offset: 'o1', live: 'long-poll' }, { offset: 'o1', live: 'long-poll', cursor: 'c1' }, { offset: 'o2', live: 'long-poll', cursor: 'c2' }]);
  });

  test('SSE: data held until its control; a connection the server closes is opened again from the last control, cursor echoed', async () => {
    const s = scripted(
      json([], { 'stream-next-offset': 'o0', 'stream-up-to-date': 'true' }),
      // Two data events, one control; then a data event whose control never comes (the connection closes).
      sse('event: data\ndata: [1,\ndata: 2]\n\nevent: data\ndata: [3]\n\nevent: control\ndata: {"streamNextOffset":"o3","streamCursor":"c1","upToDate":true}\n\nevent: data\ndata: [4]\n\n'),
      sse(': keep-alive\n\nevent: data\ndata: [4]\n\nevent: control\ndata: {"streamNextOffset":"o4","streamCursor":"c2"}\n\nevent: control\ndata: {"streamNextOffset":"o4","streamClosed":true}\n\n'),
    );
    expect(await collect(read(s.fetch, { live: 'sse' }))).toEqual([
      { offset: 'o3', messages: [1, 2, 3] },
      { offset: 'o4', messages: [4] },
    ]);
    expect(s.params()).toEqual([{ offset: '-1' }, { offset: 'o0', live: 'sse' }, { offset: 'o3', live: 'sse', cursor: 'c1' }]);
  });

  test('SSE base64: each data event decoded (its lines joined without line ends), bytes of one control concatenated', async () => {
    const s = scripted(
      new Response(new Uint8Array([9]), { headers: { 'content-type': 'application/octet-stream', 'stream-next-offset': 'o1', 'stream-up-to-date': 'true' } }),
      sse('event: data\ndata: AAEC\ndata: /w==\n\nevent: data\ndata: \n\nevent: data\ndata: DQo=\n\nevent: control\ndata: {"streamNextOffset":"o2","streamClosed":true}\n\n', { 'stream-sse-data-encoding': 'base64' }),
    );
    const out = await collect(read(s.fetch, { live: 'sse' }));
    expect(out).toEqual([
      { offset: 'o1', bytes: new Uint8Array([9]) },
      { offset: 'o2', bytes: new Uint8Array([0, 1, 2, 255, 13, 10]) },
    ]);
  });

  test('an SSE connection that ends before any control event is a failure to retry, not a reconnect loop', async () => {
    const s = scripted(json([], { 'stream-next-offset': 'o0', 'stream-up-to-date': 'true' }), sse(''), sse(''), sse(''));
    const e = await firstValueFrom(read(s.fetch, { live: 'sse', retry: { maxAttempts: 2, delayMs: 1 } })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect(s.requests).toHaveLength(4);
  });

  test('503, 429 (with Retry-After) and a network error are retried from the same offset; the delay sees the server asking', async () => {
    const asked: unknown[] = [];
    const s = scripted(
      json([1], { 'stream-next-offset': 'o1' }),
      new Response('busy', { status: 503 }),
      new Response('slow down', { status: 429, headers: { 'retry-after': '2' } }),
      new TypeError('fetch failed'),
      json([2], { 'stream-next-offset': 'o2', 'stream-up-to-date': 'true' }),
    );
    const out = await collect(
      read(s.fetch, { live: false, retry: { delayMs: (_attempt, e) => (asked.push((e as { retryAfterMs?: number }).retryAfterMs), 1) } }),
    );
    expect(out).toEqual([
      { offset: 'o1', messages: [1] },
      { offset: 'o2', messages: [2] },
    ]);
    expect(s.params().map((p) => p['offset'])).toEqual(['-1', 'o1', 'o1', 'o1', 'o1']);
    expect(asked).toEqual([undefined, 2000, undefined]);
  });

  test("a fetch that rejects: a NetworkError with the system's code, its message masked", async () => {
    const reset = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('read ECONNRESET near sk-proj-abcdefghijklmnopqrstuvwx'), { code: 'ECONNRESET' }) });
    const s = scripted(reset);
    const e = await firstValueFrom(read(s.fetch, { retry: { maxAttempts: 0 } })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NetworkError);
    expect(e).toMatchObject({ errorCode: 'ECONNRESET', retryable: true });
    expect((e as Error).message).toContain('ECONNRESET');
    expect((e as Error).message).not.toContain('sk-proj-abcdefghijklmnopqrstuvwx');
  });

  test('the budget spent: the last error passes (server_error, retryable)', async () => {
    const s = scripted(new Response('', { status: 500 }), new Response('', { status: 502 }), new Response('', { status: 503 }));
    const e = await firstValueFrom(read(s.fetch, { retry: { maxAttempts: 2, delayMs: 1 } })).catch((x: unknown) => x);
    expect(e).toMatchObject({ name: 'DurableStreamError', code: 'server_error', status: 503, retryable: true });
    expect(s.requests).toHaveLength(3);
  });

  test('403: forbidden, once; neither the Authorization value nor a query token in the error, even when the body echoes them', async () => {
    const token = 'Bearer sk-live-abcdefghijklmnop';
    const s = scripted(new Response(`denied for ${token} and q-token-1234567890`, { status: 403 }));
    const e = await firstValueFrom(fromDurableStream(`${URL_}?auth=q-token-1234567890`, { fetch: s.fetch, headers: { authorization: token } })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DurableStreamError);
    expect(e).toMatchObject({ code: 'forbidden', status: 403, retryable: false, url: URL_ });
    const shown = `${(e as Error).message} ${JSON.stringify(e)}`;
    expect(shown).not.toContain('sk-live-abcdefghijklmnop');
    expect(shown).not.toContain('q-token-1234567890');
    expect(s.requests[0]!.headers['authorization']).toBe(token);
  });

  test.each([
    [409, 'conflict'],
    [400, 'bad_request'],
    [401, 'unauthorized'],
    [418, 'http_418'],
  ])('%i: %s, not retried', async (status, code) => {
    const s = scripted(new Response('', { status }));
    await expect(firstValueFrom(read(s.fetch))).rejects.toMatchObject({ code, status, retryable: false });
  });

  test('answers outside the protocol: no Stream-Next-Offset, a JSON body that is not JSON, an empty chunk that does not move', async () => {
    const noOffset = scripted(json([1], {}));
    await expect(firstValueFrom(read(noOffset.fetch))).rejects.toMatchObject({ code: 'protocol_error', retryable: false });
    const notJson = scripted(new Response('[1,', { headers: { 'content-type': 'application/json', 'stream-next-offset': 'o1' } }));
    await expect(firstValueFrom(read(notJson.fetch))).rejects.toBeInstanceOf(DecodeError);
    const stuck = scripted(json([], { 'stream-next-offset': '-1' }));
    await expect(firstValueFrom(read(stuck.fetch))).rejects.toMatchObject({ code: 'protocol_error' });
  });

  test('unsubscribing aborts the request and cancels the body being read', async () => {
    let cancelled = false;
    const held = new ReadableStream<Uint8Array>({ cancel: () => void (cancelled = true) });
    const s = scripted(json([], { 'stream-next-offset': 'o0', 'stream-up-to-date': 'true' }), new Response(held, { headers: { 'content-type': 'text/event-stream' } }));
    const sub = read(s.fetch, { live: 'sse' }).subscribe();
    while (s.requests.length < 2) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => setTimeout(r, 5));
    sub.unsubscribe();
    expect(s.requests[1]!.signal.aborted).toBe(true);
    await new Promise((r) => setTimeout(r, 1));
    expect(cancelled).toBe(true);
  });

  test('unsubscribing during a backoff wait: no further request (the timer is cleared)', async () => {
    const s = scripted(new Response('', { status: 503 }));
    const sub = read(s.fetch, { retry: { delayMs: 60_000 } }).subscribe({ error: () => undefined });
    while (s.requests.length < 1) await new Promise((r) => setTimeout(r, 1));
    await new Promise((r) => setTimeout(r, 10));
    sub.unsubscribe();
    expect(s.requests).toHaveLength(1);
  });

  test('a signal already aborted: AbortedError, nothing sent', async () => {
    const s = scripted();
    const ac = new AbortController();
    ac.abort();
    await expect(firstValueFrom(read(s.fetch, { signal: ac.signal }))).rejects.toBeInstanceOf(AbortedError);
    expect(s.requests).toHaveLength(0);
  });

  test('offset now over SSE: the catch-up answer gives the tail and the type, then only what comes', async () => {
    const s = scripted(
      json([], { 'stream-next-offset': 'o9', 'stream-up-to-date': 'true' }),
      sse('event: control\ndata: {"streamNextOffset":"o9","streamCursor":"c","upToDate":true}\n\nevent: data\ndata: [{"late":true}]\n\nevent: control\ndata: {"streamNextOffset":"o10","streamClosed":true}\n\n'),
    );
    expect(await collect(read(s.fetch, { offset: 'now', live: 'sse' }))).toEqual([{ offset: 'o10', messages: [{ late: true }] }]);
    expect(s.params()).toEqual([{ offset: 'now' }, { offset: 'o9', live: 'sse' }]);
  });

  test.each<[string, string | URL, FromDurableStreamOptions]>([
    ['url', 'not a url', {}],
    ['url', 'ftp://h/s', {}],
    ['url', 'http://user:pw@h/s', {}],
    ['offset', URL_, { offset: 'a&b' }],
    ['offset', URL_, { offset: '' }],
    ['live', URL_, { live: 'poll' as never }],
    ['headers.x', URL_, { headers: { x: 1 as never } }],
    ['retry.maxAttempts', URL_, { retry: { maxAttempts: -1 } }],
    ['retry.delayMs', URL_, { retry: { delayMs: -5 } }],
    ['fetch', URL_, { fetch: 'nope' as never }],
  ])('an invalid %s is an InvalidOptionError, raised on subscribe (nothing sent)', async (option, url, options) => {
    const s = scripted();
    const o = fromDurableStream(url, { fetch: s.fetch, ...options });
    const e = await firstValueFrom(o).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InvalidOptionError);
    expect((e as InvalidOptionError).option).toBe(option);
    expect((e as Error).message).not.toContain('pw');
  });
});
