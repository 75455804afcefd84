// Every recipe under examples/ runs here, end to end, against the loopback servers.
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseTranscript, startResponsesWebSocketServer, startTestServer, type ResponsesWebSocketServer, type TestServer } from '../../testing/index';
import { DEMO_ANSWER, DEMO_FORECAST, demoBackground, demoStructured, demoText, demoToolAnswer, demoToolCalls } from '../../cli/transcripts';
import { main as uiMain } from '../../examples/ui-text-binding';
import { Forecast, main as structuredMain, renderCard } from '../../examples/structured-output';
import { jsonSchemaFormat } from '../../lib/schema/json-schema-format';
import { main as agentMain, TOOLS } from '../../examples/agent-loop';
import { main as socketAgentsMain } from '../../examples/agent-loop-websocket';
import { createChatProxy, main as proxyMain } from '../../examples/chat-completions-proxy';
import { main as backgroundMain, memoryStore } from '../../examples/background-resume';
import { ChatService, main as serviceMain } from '../../examples/angular-service';

const KEY = 'sk-test-examples';
const finalText = (sse: string) => String(parseTranscript(sse).events.map((e) => e.payload).find((p) => p?.['type'] === 'response.output_text.done')?.['text']);

let server: TestServer | undefined;
let ws: ResponsesWebSocketServer | undefined;
afterEach(async () => {
  await Promise.all([server?.close(), ws?.close()]);
  server = undefined;
  ws = undefined;
});

/** Answers a first turn with tool calls, and a turn that sends tool outputs with the answer. */
const agentFetch: typeof fetch = (input, init) => {
  const body = JSON.parse(String(init?.body)) as { input?: unknown };
  const outputs = Array.isArray(body.input) && body.input.some((i: { type?: string }) => i.type === 'function_call_output');
  return fetch(input as string, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-openai-rx-transcript': outputs ? 'answer' : 'tools' } });
};

describe('examples', () => {
  test('ui-text-binding: the bound text grows with each delta and ends as the whole answer', async () => {
    server = await startTestServer({ transcripts: { text: demoText() }, chunkSize: 64 });
    const answer = { textContent: '' as string | null };
    const status = { textContent: '' as string | null };
    const r = await uiMain({ baseURL: server.baseURL, apiKey: KEY, answer, status });
    expect(r.text).toBe(DEMO_ANSWER);
    expect(answer.textContent).toBe(DEMO_ANSWER);
    expect(status.textContent).toBe('done');
    expect(r.renders.length).toBeGreaterThan(10);
    r.renders.forEach((t, i) => i > 0 && expect(t.startsWith(r.renders[i - 1]!)).toBe(true));
    expect(server.requests).toHaveLength(1);
  });

  test('structured-output: the card fills in as the JSON streams, and ends as the decoded forecast', async () => {
    server = await startTestServer({ transcripts: { structured: demoStructured() }, chunkSize: 64 });
    const r = await structuredMain({ baseURL: server.baseURL, apiKey: KEY });
    expect(r.forecast).toEqual(DEMO_FORECAST);
    expect(Forecast.is(r.forecast)).toBe(true);
    expect(r.card).toBe(renderCard(r.forecast));
    // Rendered many times on the way, each a different card, and the table never loses a row.
    expect(r.renders.length).toBeGreaterThan(10);
    const rows = r.renders.map((card) => card.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| day')).length);
    rows.forEach((n, i) => i > 0 && expect(n).toBeGreaterThanOrEqual(rows[i - 1]!));
    expect(rows[0]).toBe(0);
    expect(rows[rows.length - 1]).toBe(3);
    // A card with the city half written: the JSON was shown before it was complete.
    expect(r.renders.some((card) => card.startsWith('# Par\n'))).toBe(true);
    // The request asked for the codec's strict schema, as jsonSchemaFormat built it.
    const body = server.requests[0]?.body as { text?: { format?: unknown } };
    expect(body.text?.format).toEqual(jsonSchemaFormat(Forecast, { name: 'forecast', description: 'A weather forecast card' }));
    expect(server.requests).toHaveLength(1);
  });

  test('agent-loop: runs the calls, sends their outputs back and returns the answer', async () => {
    server = await startTestServer({ transcripts: { tools: demoToolCalls(), answer: demoToolAnswer() } });
    const r = await agentMain({ baseURL: server.baseURL, apiKey: KEY, fetch: agentFetch });
    expect(r.text).toBe(finalText(demoToolAnswer()));
    expect(r.turns.map((t) => t.calls)).toEqual([['get_weather({"city":"Paris","unit":"celsius"})', 'get_time({"timezone":"Europe/Paris"})'], []]);
    const second = server.requests[1]?.body as { previous_response_id?: string; input?: Array<{ call_id: string; output: string }> };
    expect(second.previous_response_id).toBe('resp_demo_tools');
    expect(second.input).toEqual([
      { type: 'function_call_output', call_id: 'call_demo_0', output: JSON.stringify(TOOLS['get_weather']!({ city: 'Paris', unit: 'celsius' })) },
      { type: 'function_call_output', call_id: 'call_demo_1', output: JSON.stringify(TOOLS['get_time']!({ timezone: 'Europe/Paris' })) },
    ]);
  });

  test('agent-loop-websocket: three agents on three lanes of one connection', async () => {
    ws = await startResponsesWebSocketServer({
      respond: (request) => (Array.isArray(request['input']) ? demoToolAnswer() : demoToolCalls()),
    });
    const r = await socketAgentsMain({ url: ws.url, apiKey: KEY });
    expect(r.map((a) => a.lane)).toEqual(['agent-0', 'agent-1', 'agent-2']);
    for (const a of r) {
      expect(a.text).toBe(finalText(demoToolAnswer()));
      expect(a.calls).toEqual(['get_weather', 'get_time']);
    }
    expect(ws.counters.connections).toBe(1);
    expect(ws.counters.received['response.create']).toBe(6);
    expect(ws.counters.maxLaneDepth).toBe(1);
    expect(ws.counters.maxInFlight).toBeGreaterThan(1);
  });

  test('chat-completions-proxy: a chat client streams the Responses answer', async () => {
    server = await startTestServer({ transcripts: { text: demoText() } });
    const r = await proxyMain({ baseURL: server.baseURL, apiKey: KEY });
    expect(r.text).toBe(DEMO_ANSWER);
    expect(r.chunks[r.chunks.length - 1]?.choices[0]?.finish_reason).toBe('stop');
    expect(server.requests[0]?.body).toMatchObject({ input: [{ role: 'user', content: 'Why reactive streams?' }], stream: true });
  });

  test('chat-completions-proxy: the official SDK reads it, usage included', async () => {
    server = await startTestServer({ transcripts: { text: demoText() } });
    const proxy = createChatProxy({ baseURL: server.baseURL, apiKey: KEY });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    try {
      const client = new OpenAI({ apiKey: 'unused', baseURL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/v1`, maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'gpt-5.4-nano', stream: true, stream_options: { include_usage: true },
        messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Why?' }],
      });
      let text = '';
      let usage: unknown;
      for await (const c of stream) {
        text += c.choices[0]?.delta?.content ?? '';
        if (c.usage) usage = c.usage;
      }
      expect(text).toBe(DEMO_ANSWER);
      expect(usage).toMatchObject({ prompt_tokens: 10 });
      expect((server.requests[0]?.body as { input: unknown[] }).input[0]).toEqual({ role: 'developer', content: 'Be brief.' });
      await expect(client.chat.completions.create({ model: 'x', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: 400 });
    } finally {
      proxy.closeAllConnections();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  test('background-resume: a second process continues from the saved cursor, nothing twice, nothing lost', async () => {
    const sse = demoBackground();
    server = await startTestServer({ transcripts: { bg: sse }, chunkDelayMs: 2 });
    const store = memoryStore();
    const r = await backgroundMain({ baseURL: server.baseURL, apiKey: KEY, store, crashAfter: 8 });
    expect(r.cursor).toEqual({ responseId: 'resp_demo_background', sequenceNumber: 7 });
    expect(r.firstEvents).toBe(8);
    expect(r.sequence).toEqual(parseTranscript(sse).events.map((e) => e.payload?.['sequence_number']));
    expect(r.text).toBe(finalText(sse));
    expect(server.requests[1]).toMatchObject({ route: 'responses.stream', query: { stream: 'true', starting_after: '7' } });
    expect(store.load()?.sequenceNumber).toBe(r.sequence[r.sequence.length - 1]);
  });

  test('background-resume: a connection dropped mid-stream is resumed within the process', async () => {
    const sse = demoBackground();
    server = await startTestServer({ transcripts: { bg: sse }, faults: [{ type: 'ok' }, { type: 'drop', afterEvents: 10 }] });
    const r = await backgroundMain({ baseURL: server.baseURL, apiKey: KEY, crashAfter: 5 });
    expect(r.sequence).toEqual(parseTranscript(sse).events.map((e) => e.payload?.['sequence_number']));
    expect(server.requests.map((q) => q.route)).toEqual(['responses.create', 'responses.stream', 'responses.stream']);
    expect(server.requests[2]?.query['starting_after']).toBe(String(5 - 1 + 10));
  });

  test('angular-service: text$ grows for the async pipe, the state ends done', async () => {
    server = await startTestServer({ transcripts: { text: demoText() } });
    const r = await serviceMain({ baseURL: server.baseURL, apiKey: KEY });
    expect(r.final).toEqual({ status: 'done', text: DEMO_ANSWER });
    expect(r.state).toEqual(r.final);
    expect(r.seen[0]).toBe('');
    expect(r.seen[r.seen.length - 1]).toBe(DEMO_ANSWER);
  });

  test('angular-service: a new question cancels the request in flight; errors become state', async () => {
    server = await startTestServer({ transcripts: { text: demoText() }, chunkDelayMs: 20, faults: [{ type: 'ok' }, { type: 'ok' }, { type: 'status', status: 401 }] });
    const chat = new ChatService({ baseURL: server.baseURL, apiKey: KEY });
    const states: string[] = [];
    chat.state$.subscribe((s) => states.push(s.status));
    chat.ask('first');
    await server.waitForRequest(0);
    chat.ask('second');
    expect((await server.waitForClose(0)).outcome).toBe('client-closed');
    await new Promise<void>((resolve) => chat.state$.subscribe((s) => s.status === 'done' && resolve()));
    expect(chat.state().text).toBe(DEMO_ANSWER);
    chat.ask('third');
    await new Promise<void>((resolve) => chat.state$.subscribe((s) => s.status === 'error' && resolve()));
    expect(chat.state()).toMatchObject({ status: 'error', error: expect.stringContaining('HTTP 401') });
    chat.destroy();
  });
});

test('the examples import the package through ../index.js, the root entry (so they typecheck in the repo)', () => {
  for (const f of ['ui-text-binding', 'agent', 'agent-loop', 'agent-loop-websocket', 'chat-completions-proxy', 'background-resume', 'angular-service']) {
    const src = readFileSync(join(__dirname, '..', '..', 'examples', `${f}.ts`), 'utf8');
    expect(src).toMatch(/from '\.\.\/index\.js'/);
    expect(src).toMatch(/export (async )?function main/);
  }
});
