// The code of the README and of docs/*.md, type-checked by `npm run typecheck` (in CI): a snippet that no longer
// compiles fails the build. Never run: the free identifiers (render, prompts, …) stand for the reader's own code.
// test/readme/snippets.spec.ts checks that every ```ts block of README.md and docs/*.md is here word for word (but
// its imports, which must be among the imports below, from the module they name, and its `declare` lines, which are
// hoisted here verbatim). Each snippet sits in its own block (or function, when it awaits), as the reader would paste
// it on its own.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Component } from '@angular/core';
import * as t from 'io-ts';
import { animationFrameScheduler, filter, from, lastValueFrom, map } from 'rxjs';
import {
  accumulateResponse, collectToolCalls, connectResponsesSocket, defineTool, fanOut, fromDurableStream, fromEventLog, isAgentEvent, isLaneError, jsonSchemaFormat, laneMux,
  memoryEventLog, outputObject, outputText, persistTo, redisEventLog, resumeFrom, resumeFromCursor, retrieveResponseStream, runAgent, smoothText,
  streamResponse, toChatChunks, toChatSSE, withDescription, type ResponseCreateParams, type ResumeCursor,
} from '../../index.js';
import { ofType } from '../../operators/index.js';
import { chatRequestToResponses, createGateway, GatewayHttpError } from '../../gateway/index.js';
import { injectResponse, responseSignals } from '../../angular/index.js';
import { startScriptedProvider, startTestServer } from '../../testing/index.js';
import { stream } from '@durable-streams/client';
import { createDurableStreamsHandler, serveDurableStream, type DurableStreamStore } from '../../lib/durable-streams/index.js';

// The reader's own code.
declare function render(x: unknown): void;
declare function report(x: unknown): void;
declare function route(id: string | undefined, e: unknown): void;
declare function saveCursor(c: ResumeCursor): void;
declare function loadCursor(): ResumeCursor;
declare const prompts: string[];
declare const longSSE: string;
declare function fetchWeather(city: string, unit: 'celsius' | 'fahrenheit', signal: AbortSignal): Promise<{ temperature: number }>;
declare const answer: HTMLElement;
declare const request: ResponseCreateParams;
declare const res: ServerResponse;
declare const model: string;
declare const input: string;
declare const userId: string;
declare const responseId: string;
declare const saved: number;
declare const config: { apiKey?: string; baseURL?: string };
declare function authorize(req: IncomingMessage): Promise<{ owner: string }>;
// The `declare` lines of the docs' snippets, as they print them.
declare function userOfSession(sessionId: string | undefined): Promise<string | undefined>; // your sign-in's sessions
declare function serveApp(req: IncomingMessage, res: ServerResponse): void; // the Angular build, the sign-in page
declare function userOfSession(token: string | undefined): Promise<string | undefined>;
declare const body: string;
declare const lastOffset: string | undefined; // the resume point you saved, if any
declare function saveOffset(offset: string): void;
declare const token: string;
declare const apiKey: string; // the credentials the response was created with: its owner
declare function loadOffset(): string | undefined;
declare const recorded: DurableStreamStore; // info, read and wait: a read-only store

// README.md, "Example"
{
// OPENAI_API_KEY, and OPENAI_BASE_URL for another compatible provider (default https://api.openai.com/v1).
// Offline: `npx openai-rx serve --drop-after 20`, then OPENAI_BASE_URL=http://127.0.0.1:4010/v1.
const config = {};
const reconnect = (c: ResumeCursor) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config);

streamResponse({ model: 'gpt-5.4-nano', input: 'Why reactive streams?', background: true }, config) // cold: sends on subscribe
  .pipe(
    resumeFrom(reconnect), // a dropped connection goes on after the last event: no gap, no duplicate
    fanOut(ofType('response.output_text.delta'), collectToolCalls()), // one pass: text deltas, finished tool calls
  )
  .subscribe({
    next: (x) => (x.type === 'response.output_text.delta' ? process.stdout.write(x.delta) : console.log('\ntool call:', x.item)),
    error: (e) => console.error(`\n${e.name}: ${e.message}`), // one typed error (code, retryable), or completion
    complete: () => console.log('\ndone'),
  });
}

// README.md, "Structured outputs"
{
const Card = t.type({ title: t.string, tags: t.array(t.string), rating: t.union([t.number, t.null]) });

streamResponse({ model: 'gpt-5.4-mini', input: 'A card for the film Dune', text: { format: jsonSchemaFormat(Card, { name: 'card' }) } })
  .pipe(outputObject(Card))
  .subscribe({ next: (card) => render(card), error: (e) => report(e) }); // partial cards as they fill in, the decoded one last
}

// docs/transports.md
{
streamResponse({ model: 'gpt-5.4-nano', input: 'Say hello' })    // cold: sends on subscribe, aborts on unsubscribe
  .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
  .subscribe((text) => process.stdout.write(text));
}

// docs/operators.md
{
createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (s) => (body += s)).on('end', () => {
    const chat = JSON.parse(body); // a Chat Completions request
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const sub = streamResponse({ model: chat.model, input: chat.messages }, { apiKey: process.env.OPENAI_API_KEY })
      .pipe(toChatChunks({ includeUsage: chat.stream_options?.include_usage }), toChatSSE({ onError: 'event' }))
      .subscribe({ next: (text) => res.write(text), complete: () => res.end(), error: () => res.end() });
    res.on('close', () => sub.unsubscribe()); // client gone: the upstream request is aborted
  });
}).listen(8080);
}

// docs/websocket.md
{
const socket = connectResponsesSocket({ apiKey: process.env.OPENAI_API_KEY }); // URL from baseURL
// The common case, as easy as SSE: one response, completing at its terminal event.
socket.response({ model: 'gpt-5.4-nano', input: 'Hi' }).pipe(outputText()).subscribe(render);
// Many: FIFO per lane, lanes concurrent (at most 16 in flight, 32 lanes), results tagged with their lane.
from(prompts.map((input, i) => ({ type: 'response.create' as const, stream_id: `lane-${i % 4}`, model: 'gpt-5.4-nano', input })))
  .pipe(laneMux(socket))
  .subscribe((e) => (isLaneError(e) ? report(e) : route(e.stream_id, e)));
socket.close();
}

// docs/resume.md (and its inline code: resumeFromCursor after a crash, the full state replayed)
{
const config = { apiKey: process.env.OPENAI_API_KEY };
const reconnect = (c: ResumeCursor) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config);

streamResponse({ model: 'gpt-5.4', input: 'Write the report.', background: true }, config)
  .pipe(resumeFrom(reconnect, { onCursor: (c) => saveCursor(c) }), outputText())
  .subscribe((text) => render(text));
resumeFromCursor(loadCursor(), reconnect).pipe(outputText()).subscribe(render);
retrieveResponseStream('resp_1', {}, config).pipe(resumeFrom(reconnect), accumulateResponse()).subscribe(render);
}

// docs/durable-log.md
{
const log = memoryEventLog();            // or redisEventLog({ url }) across processes
streamResponse({ model, input, background: true }, config).pipe(persistTo(log, { owner: userId })).subscribe();
fromEventLog(log, responseId, { owner: userId, startingAfter: saved, upstream: config }).pipe(outputText()).subscribe(render);
}
{
const log = redisEventLog({ url: process.env.REDIS_URL, keyPrefix: 'myapp:' });   // or { client: myIORedisOrCluster }
void log;
}

// docs/testing.md
export async function testServer() {
const server = await startTestServer({
  transcripts: { long: longSSE },            // recorded SSE text, chosen by `model` or the x-openai-rx-transcript header
  faults: [{ type: 'drop', afterEvents: 40 }, { type: 'status', status: 503 }],
});
const config = { baseURL: server.baseURL, apiKey: 'test' };
// … streamResponse({ model: 'long', input: 'x' }, config)
server.requests; // what it saw (Authorization redacted), and how each connection ended
await server.close();
void config;
}

// docs/angular.md
streamResponse({ model: 'gpt-5.4-nano', input: 'Why reactive streams?' }, { baseURL: `${location.origin}/api/v1` })
  .pipe(smoothText({ scheduler: animationFrameScheduler }), outputText())
  .subscribe((text) => (answer.textContent = text));

// docs/agents.md
const getWeather = defineTool({
  description: 'The current weather in a city',
  parameters: t.type({
    city: withDescription(t.string, 'City name, e.g. Paris'),
    unit: t.union([t.keyof({ celsius: null, fahrenheit: null }), t.undefined]),   // optional
  }),
  execute: ({ city, unit }, { signal }) => fetchWeather(city, unit ?? 'celsius', signal),   // value, Promise or Observable
});

const subscription = runAgent({ model: 'gpt-5.4-mini', input: 'Weather in Paris?' }, { tools: { get_weather: getWeather } })
  .pipe(outputText())
  .subscribe((text) => render(text));
// subscription.unsubscribe(): the request is aborted, fetchWeather's signal fires, nothing more is sent.
subscription.unsubscribe();
const tools = { get_weather: getWeather };
{
// A Chat Completions endpoint backed by an agent:
runAgent(request, { tools, asOneResponse: true })
  .pipe(filter((e) => !isAgentEvent(e)), toChatChunks(), toChatSSE())
  .subscribe((text) => res.write(text));
}
{
runAgent(
  { model: 'gpt-5.4', input: 'Research this.', background: true },
  { tools, resume: { maxAttempts: 5, onCursor: (c) => saveCursor(c) } },   // or resume: true for the defaults
);
}
export async function scripted() {
const provider = await startScriptedProvider({
  turns: [
    { calls: [{ name: 'get_weather', arguments: { city: 'Paris', unit: null } }] },
    (req) => ({ text: `Forecast: ${String(req.output('call_0_0'))}` }),
  ],
});
await lastValueFrom(runAgent({ model: 'm', input: 'Weather?' }, { tools, config: { baseURL: provider.baseURL, apiKey: 'test' } }));
expect(provider.requests[1]?.previousResponseId).toBe(provider.requests[0]?.responseId);
await provider.close();
}

// docs/gateway.md
{
const gateway = createGateway({
  upstream: { baseURL: 'https://api.openai.com/v1' },   // default: OPENAI_BASE_URL, else the OpenAI API
  log: process.env.REDIS_URL,                // an EventLog, a redis:// URL, or 'memory' (the default)
  background: true,                          // any instance can continue a stream after a crash
  limits: { maxBodyBytes: 16 << 20, maxConcurrentStreams: 10_000 },
  timeouts: { upstreamMs: 600_000, heartbeatMs: 15_000 },
});
createServer(gateway).listen(8080);
process.on('SIGTERM', () => void gateway.close());
// clients: new OpenAI({ baseURL: 'http://localhost:8080/v1' })
}
{
createGateway({ authorize, passThrough: ['GET /v1/files', 'POST /v1/files', 'GET /v1/vector_stores/*'] });
}
{
const gateway = createGateway({
  upstream: { baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY },
  authorize: async (req) => {
    const token = /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const owner = await userOfSession(token);
    if (!owner) throw new GatewayHttpError(401, 'Sign in first.', { code: 'no_session' });
    return { owner };
  },
});
void gateway;
}
{
const mapped = chatRequestToResponses(JSON.parse(body));
if (mapped.ok) {
  streamResponse(mapped.request, { apiKey: process.env.OPENAI_API_KEY })
    .pipe(toChatChunks({ includeUsage: mapped.includeUsage }), toChatSSE())
    .subscribe((text) => process.stdout.write(text));
} else {
  console.error(mapped.error.status, mapped.error.body);   // 400 { error: { message, type, param, code } }
}
}
export async function durableStreamReader() {
const res = await stream({
  url: `http://localhost:8080/v1/stream/responses/${responseId}`,
  headers: { Authorization: `Bearer ${apiKey}` },
  offset: loadOffset() ?? '-1', // where this reader stopped, on any instance of the fleet
  live: 'sse',
});
res.subscribeJson(({ items, offset }) => {
  for (const event of items) render(event); // response.created, the deltas, …, the terminal event
  saveOffset(offset);
});
}

// docs/angular.md: the chat box, its gateway (test/angular/gateway-pair.spec.ts runs the two together), one answer
@Component({
  selector: 'chat-box',
  template: `
    <input #q /> <button (click)="chat.send(q.value)" [disabled]="chat.busy()">Send</button>
    <button (click)="chat.stop()" [disabled]="!chat.busy()">Stop</button>
    <p>{{ chat.text() }}</p>
    @if (chat.status() === 'error') { <p>{{ chat.error() }} <button (click)="chat.retry()">Retry</button></p> }
  `,
})
export class ChatBox {
  // Your backend on this page's origin (the gateway below): never an API key in the page. The browser sends the
  // user's session cookie with every same-origin request by itself: that is who the gateway's `authorize` sees.
  readonly chat = injectResponse({ baseURL: '/api/v1', model: 'gpt-5.4-nano', resume: true, smooth: true });
}
{
const gateway = createGateway({
  upstream: { baseURL: 'https://api.openai.com/v1', apiKey: process.env.OPENAI_API_KEY }, // the key stays here
  authorize: async (req) => {
    // The browser is its session cookie (set at sign-in, HttpOnly, SameSite=Strict), sent with every same-origin request.
    const session = /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    const owner = await userOfSession(session);
    if (!owner) throw new GatewayHttpError(401, 'Sign in first.', { code: 'no_session' });
    return { owner }; // owns the streams it starts: only this user can resume or cancel them
  },
});

createServer((req, res) => {
  // The page asks /api/v1/…; the gateway serves /v1/….
  if (req.url?.startsWith('/api/v1/')) {
    req.url = req.url.slice('/api'.length);
    return gateway(req, res);
  }
  serveApp(req, res);
}).listen(8080);
process.on('SIGTERM', () => void gateway.close());
}
@Component({
  selector: 'one-answer',
  template: `<p>{{ answer.text() }}</p> @if (answer.status() === 'error') { <p>{{ answer.error() }}</p> }`,
})
export class OneAnswer {
  readonly answer = responseSignals(streamResponse({ model: 'gpt-5.4-nano', input: 'Hi' }, { baseURL: `${location.origin}/api/v1` }), { smooth: true });
}

// docs/durable-streams-client.md
{
fromDurableStream<{ type: string }>('https://example.com/v1/stream/chat-42', { offset: lastOffset, live: 'sse', headers: { authorization: `Bearer ${token}` } })
  .subscribe((batch) => {
    if ('messages' in batch) for (const m of batch.messages) render(m);
    saveOffset(batch.offset); // the resume point: after this batch
  });
}

// docs/durable-streams-server.md
{
createServer(createDurableStreamsHandler({ log: redisEventLog({ url: 'redis://127.0.0.1:6379' }) })).listen(4437);
}
{
const streams = createDurableStreamsHandler({ log: memoryEventLog(), prefix: '/streams/', next: (req, res) => void res.writeHead(404).end() });
createServer((req, res) => {
  if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end();
  streams(req, res);
}).listen(8080);
}
{
function serveRecorded(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  return serveDurableStream(req, res, { store: recorded, path, cacheControl: 'no-store' });
}
}
