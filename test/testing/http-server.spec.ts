import { filter, firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { connectResponsesSocket, HTTPError, StreamInterruptedError, retrieveResponseStream, streamChatCompletion, streamResponse } from '../../index';
import { parseTranscript, startTestServer, textTranscript, chatTranscript, type TestServer } from '../../testing/index';

const KEY = 'sk-test-SECRET-0123456789abcdef';
const text = textTranscript({ responseId: 'resp_srv', deltas: ['Hel', 'lo', ', ', 'wor', 'ld', '!'], background: true });
const other = textTranscript({ responseId: 'resp_other', deltas: ['other'] });
const chunk = (id: string, content: string | undefined, finish: string | null) => ({
  id, object: 'chat.completion.chunk', created: 1758200000, model: 'gpt-test',
  choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }],
});
const chat = chatTranscript([chunk('chatcmpl_1', 'Hi', null), chunk('chatcmpl_1', ' there', null), chunk('chatcmpl_1', undefined, 'stop')]);
const payloadsOf = (sse: string) => parseTranscript(sse).events.map((e) => e.payload);

let server: TestServer;
afterEach(async () => {
  await server?.close();
});
const start = async (extra: Partial<Parameters<typeof startTestServer>[0]> = {}) => {
  server = await startTestServer({ transcripts: { text, other, chat }, ...extra });
  return { baseURL: server.baseURL, apiKey: KEY };
};

describe('startTestServer', () => {
  test('listens on 127.0.0.1 on a free port and serves POST /v1/responses as the recorded SSE', async () => {
    const config = await start();
    expect(server.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server.port).toBeGreaterThan(0);
    const events = await lastValueFrom(streamResponse({ model: 'gpt-5.4-nano', input: 'hi', background: true }, config).pipe(toArray()));
    expect(events).toEqual(payloadsOf(text));
    expect(events[1]?.type).toBe('response.queued');
    const r = server.requests[0];
    expect(r).toMatchObject({ method: 'POST', path: '/v1/responses', route: 'responses.create', transcript: 'text', status: 200, outcome: 'completed' });
    expect(r?.body).toMatchObject({ model: 'gpt-5.4-nano', stream: true, background: true });
    expect(r?.eventsSent).toBe(payloadsOf(text).length);
  });

  test('chooses the transcript by header, then by model, then the default', async () => {
    const config = await start({ defaultTranscript: 'other' });
    const byModel = await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config).pipe(toArray()));
    expect(byModel).toEqual(payloadsOf(text));
    const byDefault = await lastValueFrom(streamResponse({ model: 'gpt-x', input: 'x' }, config).pipe(toArray()));
    expect(byDefault).toEqual(payloadsOf(other));
    const byHeader = await lastValueFrom(streamResponse({ model: 'other', input: 'x' }, { ...config, headers: { 'x-openai-rx-transcript': 'text' } }).pipe(toArray()));
    expect(byHeader).toEqual(payloadsOf(text));
  });

  test('GET ?stream=true&starting_after=N resumes at N+1, without response.created', async () => {
    const config = await start();
    await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config));
    const resumed = await lastValueFrom(retrieveResponseStream('resp_srv', { startingAfter: 1 }, config).pipe(toArray()));
    expect(resumed).toEqual(payloadsOf(text).slice(2));
    expect(resumed[0]?.sequence_number).toBe(2);
    expect(server.requests[1]).toMatchObject({ method: 'GET', route: 'responses.stream', query: { stream: 'true', starting_after: '1' } });
  });

  test('GET /v1/responses/{id} answers the final Response object; an unknown id is a 404 HTTPError', async () => {
    const config = await start();
    await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config));
    const res = await fetch(`${server.baseURL}/responses/resp_srv`);
    const body = (await res.json()) as { id: string; status: string; output: Array<{ content: Array<{ text: string }> }> };
    expect(body.id).toBe('resp_srv');
    expect(body.status).toBe('completed');
    expect(body.output[0]?.content[0]?.text).toBe('Hello, world!');
    const err = await lastValueFrom(retrieveResponseStream('resp_nope', {}, config)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HTTPError);
    expect(err).toMatchObject({ status: 404, retryable: false });
  });

  test('POST /v1/chat/completions serves the chat transcript', async () => {
    const config = await start();
    const chunks = await lastValueFrom(streamChatCompletion({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }] }, config).pipe(toArray()));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Hi there');
    expect(server.requests[0]).toMatchObject({ route: 'chat.create', transcript: 'chat', outcome: 'completed' });
  });

  test('drop after K events cuts the connection inside event K: the client gets StreamInterruptedError at K-1', async () => {
    const config = await start({ faults: [{ type: 'drop', afterEvents: 4 }] });
    const err = await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamInterruptedError);
    expect(err).toMatchObject({ responseId: 'resp_srv', lastSequenceNumber: 3, retryable: true });
    const dropped = await server.waitForClose(0);
    expect(dropped).toMatchObject({ outcome: 'dropped', eventsSent: 4 });
    const ends: number[] = [];
    let total = 0;
    for (const e of parseTranscript(text).events) ends.push((total += Buffer.byteLength(e.raw)));
    // Inside event 4: past the end of event 3, short of the end of event 4.
    expect(dropped.bytesSent).toBeGreaterThan(ends[3] ?? Infinity);
    expect(dropped.bytesSent).toBeLessThan(ends[4] ?? -1);
    // The next request is served normally.
    const rest = await lastValueFrom(retrieveResponseStream('resp_srv', { startingAfter: 3 }, config).pipe(toArray()));
    expect(rest).toEqual(payloadsOf(text).slice(4));
    expect(await server.waitForClose(1)).toMatchObject({ outcome: 'completed', fault: undefined });
  });

  test('drop after K bytes, with small chunks and a per-chunk delay', async () => {
    const config = await start({ chunkSize: 7, chunkDelayMs: 1, faults: [{ type: 'drop', afterBytes: 500 }] });
    const got: number[] = [];
    const err = await new Promise((resolve) => {
      streamResponse({ model: 'text', input: 'x' }, config).subscribe({ next: (e) => got.push(e.sequence_number ?? -1), error: resolve, complete: () => resolve(undefined) });
    });
    expect(err).toBeInstanceOf(StreamInterruptedError);
    expect(await server.waitForClose(0)).toMatchObject({ outcome: 'dropped', bytesSent: 500 });
    // Exactly the events whose bytes all fit in the first 500.
    const ends: number[] = [];
    let total = 0;
    for (const e of parseTranscript(text).events) ends.push((total += Buffer.byteLength(e.raw)));
    expect(got).toEqual(ends.flatMap((end, i) => (end <= 500 ? [i] : [])));
  });

  test.each([
    [429, 'rate_limit_exceeded', true],
    [500, 'server_error', true],
    [503, 'server_is_overloaded', true],
    [400, null, false],
  ])('an injected %i is an HTTPError with status, code, message, request id and retryable, and no API key', async (status, code, retryable) => {
    const config = await start();
    server.inject({ type: 'status', status });
    const err = await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HTTPError);
    const h = err as HTTPError;
    expect(h.status).toBe(status);
    expect(h.errorCode).toBe(code);
    expect(typeof h.apiMessage).toBe('string');
    expect(h.requestId).toBe('req_test_0');
    expect(h.retryable).toBe(retryable);
    for (const s of [JSON.stringify(h), h.message, h.toString(), String(h.stack)]) expect(s).not.toContain(KEY);
  });

  test('a status fault can set its own code, message and headers', async () => {
    const config = await start({ faults: [{ type: 'status', status: 429, code: 'insufficient_quota', message: 'quota', headers: { 'retry-after': '2' } }] });
    const res = await fetch(`${server.baseURL}/responses`, { method: 'POST', body: JSON.stringify({ model: 'text', stream: true }) });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await res.json()).toEqual({ error: { message: 'quota', type: 'requests', param: null, code: 'insufficient_quota' } });
    expect(config.baseURL).toBe(server.baseURL);
  });

  test('unsubscribing mid-stream closes the connection, and the server sees it', async () => {
    const config = await start({ faults: [{ type: 'stall', afterEvents: 3 }] });
    const first = await firstValueFrom(streamResponse({ model: 'text', input: 'x' }, config).pipe(take(2), toArray()));
    expect(first.map((e) => e.sequence_number)).toEqual([0, 1]);
    const closed = await server.waitForClose(0);
    expect(closed.outcome).toBe('client-closed');
    expect(closed.eventsSent).toBe(3);
    expect(closed.closedAt).toBeGreaterThanOrEqual(closed.openedAt);
  });

  test('close() ends stalled connections', async () => {
    const config = await start({ faults: [{ type: 'stall', afterEvents: 2 }] });
    const got: number[] = [];
    let ended: unknown = 'open';
    const sub = streamResponse({ model: 'text', input: 'x' }, config).subscribe({ next: (e) => got.push(e.sequence_number ?? -1), error: (e: unknown) => (ended = e) });
    await server.waitForRequest(0);
    while (got.length < 2) await new Promise((r) => setImmediate(r));
    await server.close();
    expect(server.requests[0]?.outcome).toBe('server-closed');
    expect(server.connections.every((c) => c.closedAt !== undefined)).toBe(true);
    // The client sees a broken body: an interruption, resumable after 1.
    while (ended === 'open') await new Promise((r) => setImmediate(r));
    expect(ended).toMatchObject({ code: 'stream_interrupted', lastSequenceNumber: 1 });
    sub.unsubscribe();
  });

  test('records headers with the Authorization value redacted, and nothing it records holds the key', async () => {
    const config = await start();
    await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, { ...config, headers: { 'x-trace': 't1' } }));
    const r = server.requests[0];
    expect(r?.headers['authorization']).toBe('Bearer [redacted]');
    expect(r?.headers['x-trace']).toBe('t1');
    expect(JSON.stringify(server.requests)).not.toContain(KEY);
    expect(JSON.stringify(server.requests)).not.toContain('SECRET');
  });

  test('with apiKey set, a wrong key is a 401 that does not echo it', async () => {
    const config = await start({ apiKey: 'sk-right' });
    const err = await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config)).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 401, errorCode: 'invalid_api_key', retryable: false });
    expect(JSON.stringify(err)).not.toContain(KEY);
    const ok = await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, { ...config, apiKey: 'sk-right' }).pipe(toArray()));
    expect(ok).toHaveLength(payloadsOf(text).length);
  });

  test('onRequest and onClose see each request come and go', async () => {
    const log: string[] = [];
    const config = await start({ onRequest: (r) => log.push(`> ${r.method} ${r.path}`), onClose: (r) => log.push(`< ${r.index} ${r.outcome}`) });
    await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config));
    await server.waitForClose(0);
    expect(log).toEqual(['> POST /v1/responses', '< 0 completed']);
  });

  test('a fault function chooses per request', async () => {
    const config = await start({ faults: (r) => (r.route === 'responses.create' ? { type: 'status', status: 503 } : undefined) });
    await expect(lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config))).rejects.toMatchObject({ status: 503 });
    expect(server.requests[0]?.fault).toEqual({ type: 'status', status: 503 });
  });
});

describe('HTTP transports over the loopback server', () => {
  const secretFree = (e: unknown) => {
    const err = e as Error;
    for (const s of [JSON.stringify(err), err.message, String(err), String(err.stack)]) expect(s).not.toContain(KEY);
  };

  test('unsubscribing from retrieveResponseStream and streamChatCompletion closes their connections', async () => {
    const config = await start({ faults: [{ type: 'ok' }, { type: 'stall', afterEvents: 4 }, { type: 'stall', afterEvents: 1 }] });
    await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config));
    const resumed = await firstValueFrom(retrieveResponseStream('resp_srv', { startingAfter: 0 }, config).pipe(take(3), toArray()));
    expect(resumed.map((e) => e.sequence_number)).toEqual([1, 2, 3]);
    expect(await server.waitForClose(1)).toMatchObject({ route: 'responses.stream', outcome: 'client-closed' });
    const chunks = await firstValueFrom(streamChatCompletion({ model: 'gpt-test', messages: [] }, config).pipe(take(1), toArray()));
    expect(chunks).toHaveLength(1);
    expect(await server.waitForClose(2)).toMatchObject({ route: 'chat.create', outcome: 'client-closed' });
  });

  test('a dropped body and a refused connection carry no API key', async () => {
    const config = await start({ faults: [{ type: 'drop', afterBytes: 300 }] });
    const cut = await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config)).catch((e: unknown) => e);
    expect(cut).toMatchObject({ code: 'stream_interrupted', retryable: true });
    secretFree(cut);
    await server.close();
    const refused = await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config)).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'NetworkError', retryable: true });
    secretFree(refused);
  });

  test('a 401 for a wrong key carries neither key', async () => {
    const config = await start({ apiKey: 'sk-right-key-xyz' });
    const err = await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HTTPError);
    secretFree(err);
    expect(JSON.stringify(err)).not.toContain('sk-right-key-xyz');
    expect(JSON.stringify(server.requests)).not.toContain('sk-right-key-xyz');
  });

  test('webSocket: one origin serves SSE and WebSocket mode, as the API does (ws://…/v1/responses on the same port)', async () => {
    const config = await start({ webSocket: {} });
    expect(server.webSocket?.url).toBe(`ws://127.0.0.1:${server.port}/v1/responses`);
    // the socket's URL comes from the same baseURL as the HTTP requests
    const socket = connectResponsesSocket({ baseURL: config.baseURL, apiKey: KEY });
    try {
      // the same transcript as over HTTP (by model), with a fresh response id
      const overSocket = await lastValueFrom(socket.response({ model: 'text', input: 'x' }).pipe(toArray()));
      expect(overSocket.map((e) => e.type)).toEqual(payloadsOf(text).map((p) => p?.['type']));
      expect(overSocket.filter((e) => e.type === 'response.output_text.delta').map((e) => (e as { delta: string }).delta).join('')).toBe('Hello, world!');
      const overSSE = await lastValueFrom(streamResponse({ model: 'text', input: 'hi' }, config).pipe(toArray()));
      expect(overSSE).toEqual(payloadsOf(text));
      expect(server.webSocket?.handshakes[0]?.['authorization']).toBe(`Bearer ${KEY}`);
    } finally {
      socket.close();
    }
  });

  test('webSocket: close() ends the open WebSocket connections too, and nothing is left listening', async () => {
    await start({ webSocket: {} });
    const socket = connectResponsesSocket({ url: server.webSocket!.url, apiKey: KEY });
    const states: string[] = [];
    socket.state$.subscribe((s) => states.push(s));
    await firstValueFrom(socket.state$.pipe(filter((s) => s === 'open')));
    await server.close();
    await firstValueFrom(socket.state$.pipe(filter((s) => s === 'closed')));
    expect(states).toContain('open');
    const refused = await fetch(`http://127.0.0.1:${server.port}/v1/responses`).then(() => 'answered', () => 'refused');
    expect(refused).toBe('refused');
  });
});
