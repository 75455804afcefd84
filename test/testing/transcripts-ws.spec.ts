// startTestServer's WebSocket side answers from the same transcripts, faults and records as HTTP; chat
// requests get a Responses transcript as chat chunks; responsesTranscript takes inline event objects.
import { lastValueFrom, toArray } from 'rxjs';
import {
  collectToolCalls, connectResponsesSocket, fromResponsesSSE, HTTPError, outputText, streamChatCompletion, streamResponse, type ResponseStreamEvent,
} from '../../index';
import { chatTranscript, parseTranscript, responsesTranscript, startTestServer, textTranscript, type TestServer } from '../../testing/index';

const text = textTranscript({ responseId: 'resp_a', deltas: ['Hel', 'lo', '!'] });
const other = textTranscript({ responseId: 'resp_b', deltas: ['Other ', 'answer'] });
const config = (s: TestServer) => ({ baseURL: s.baseURL, apiKey: 'k' });
const typesOf = (sse: string) => parseTranscript(sse).events.map((e) => e.payload?.['type']);

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('responsesTranscript', () => {
  test('takes inline event objects (any fields, unknown types too) as well as typed events', async () => {
    // Object literals with fields beyond `type`: a type error before (excess property check).
    const sse = responsesTranscript([
      { type: 'response.created', sequence_number: 0, response: { id: 'resp_inline', object: 'response', created_at: 1, status: 'in_progress', model: 'm', output: [] } },
      { type: 'response.vendor_extension', sequence_number: 1, anything: { nested: true } },
      { type: 'response.completed', sequence_number: 2, response: { id: 'resp_inline', object: 'response', created_at: 1, status: 'completed', model: 'm', output: [] } },
    ]);
    const events = await lastValueFrom(fromResponsesSSE(sse).pipe(toArray()));
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.vendor_extension', 'response.completed']);
    const typed: ResponseStreamEvent[] = events;
    expect(responsesTranscript(typed)).toBe(sse);
  });
});

describe('startTestServer: chat requests from a Responses transcript', () => {
  test('POST /v1/chat/completions without a chat transcript answers the named Responses one through toChatChunks', async () => {
    server = await startTestServer({ transcripts: { text, other } });
    const chunks = await lastValueFrom(streamChatCompletion({ model: 'other', messages: [{ role: 'user', content: 'hi' }], stream_options: { include_usage: true } }, config(server)).pipe(toArray()));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Other answer');
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).toBe(true);
    expect(chunks[chunks.length - 1]?.usage).toMatchObject({ total_tokens: expect.any(Number) });
    expect(server.requests[0]).toMatchObject({ route: 'chat.create', transcript: 'other', status: 200, outcome: 'completed' });
  });

  test('a chat transcript, when there is one, still wins; chatFromResponses: false keeps the old 404', async () => {
    const chat = chatTranscript([{ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'chat!' }, finish_reason: 'stop' }] }]);
    server = await startTestServer({ transcripts: { text, chat } });
    const chunks = await lastValueFrom(streamChatCompletion({ model: 'x', messages: [] }, config(server)).pipe(toArray()));
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('chat!');
    await server.close();
    server = await startTestServer({ transcripts: { text }, chatFromResponses: false });
    const err = await lastValueFrom(streamChatCompletion({ model: 'text', messages: [] }, config(server))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HTTPError);
    expect(err).toMatchObject({ status: 404 });
  });
});

describe('startTestServer({ webSocket }): the same transcripts, faults and records as HTTP', () => {
  test('a response.create gets the transcript its model names (else the default, else the first), recorded in requests', async () => {
    const log: string[] = [];
    server = await startTestServer({
      transcripts: { text, other }, webSocket: {},
      onRequest: (r) => log.push(`> ${r.method} ${r.transport ?? 'http'}`), onClose: (r) => log.push(`< ${r.index} ${r.outcome}`),
    });
    const socket = connectResponsesSocket({ baseURL: server.baseURL, apiKey: 'k' });
    try {
      expect(await lastValueFrom(socket.response({ model: 'other', input: 'x' }).pipe(outputText()))).toBe('Other answer');
      expect(await lastValueFrom(socket.response({ model: 'unknown', input: 'x' }).pipe(outputText()))).toBe('Hello!');
      const events = await lastValueFrom(socket.response({ model: 'text', input: 'x' }).pipe(toArray()));
      expect(events.map((e) => e.type)).toEqual(typesOf(text));
    } finally {
      socket.close();
    }
    await server.waitForClose(2);
    expect(server.requests.map((r) => [r.transport, r.method, r.route, r.transcript, r.outcome])).toEqual([
      ['websocket', 'WS', 'responses.create', 'other', 'completed'],
      ['websocket', 'WS', 'responses.create', 'text', 'completed'],
      ['websocket', 'WS', 'responses.create', 'text', 'completed'],
    ]);
    expect(server.requests[2]?.eventsSent).toBe(typesOf(text).length);
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer [redacted]');
    expect(log.slice(0, 2)).toEqual(['> WS websocket', '< 0 completed']);
  });

  test('faults apply in arrival order across both transports: a status fault is an error event, a drop cuts the connection', async () => {
    server = await startTestServer({ transcripts: { text }, webSocket: {}, faults: [{ type: 'status', status: 429 }, { type: 'drop', afterEvents: 3 }] });
    const socket = connectResponsesSocket({ baseURL: server.baseURL, apiKey: 'k' });
    try {
      const limited = await lastValueFrom(socket.response({ model: 'text', input: 'x' })).catch((e: unknown) => e);
      expect(limited).toMatchObject({ code: 'rate_limit_exceeded' });
      const got: string[] = [];
      const dropped = await new Promise((resolve) =>
        socket.response({ model: 'text', input: 'x' }).subscribe({ next: (e) => got.push(e.type), error: resolve, complete: () => resolve('completed') }),
      );
      expect(dropped).not.toBe('completed');
      expect(got).toEqual(typesOf(text).slice(0, 3));
    } finally {
      socket.close();
    }
    const dropRecord = await server.waitForClose(1);
    expect(server.requests[0]).toMatchObject({ transport: 'websocket', status: 429, fault: { type: 'status', status: 429 } });
    expect(dropRecord).toMatchObject({ transport: 'websocket', outcome: 'dropped', eventsSent: 3, fault: { type: 'drop', afterEvents: 3 } });
    // HTTP is served normally after the script ran out.
    expect(await lastValueFrom(streamResponse({ model: 'text', input: 'x' }, config(server)).pipe(outputText()))).toBe('Hello!');
  });

  test('without Responses transcripts, WebSocket mode still answers with the generated response', async () => {
    const chat = chatTranscript([{ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] }]);
    server = await startTestServer({ transcripts: { chat }, webSocket: {} });
    const socket = connectResponsesSocket({ baseURL: server.baseURL, apiKey: 'k' });
    try {
      const events = await lastValueFrom(socket.response({ model: 'm', input: 'x', metadata: { loopback_deltas: '3' } }).pipe(toArray()));
      expect(events.filter((e) => e.type === 'response.output_text.delta')).toHaveLength(3);
      expect(await lastValueFrom(socket.response({ model: 'm', input: 'x' }).pipe(collectToolCalls(), toArray()))).toEqual([]);
    } finally {
      socket.close();
    }
  });
});
