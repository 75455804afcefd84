// The code of the README and of docs/*.md, type-checked by `npm run typecheck` (in CI): a snippet that no longer
// compiles fails the build. Never run: the free identifiers (render, prompts, …) stand for the reader's own code.
// Each snippet of the guides sits in its own block, as the reader would paste it on its own.
import { createServer, type ServerResponse } from 'node:http';
import { Component } from '@angular/core';
import * as t from 'io-ts';
import { animationFrameScheduler, filter, from, lastValueFrom, map } from 'rxjs';
import {
  accumulateResponse, connectResponsesSocket, defineTool, isAgentEvent, isLaneError, laneMux, outputText, resumeFrom, resumeFromCursor,
  retrieveResponseStream, runAgent, smoothText, streamResponse, toChatChunks, toChatSSE, ofType, withDescription,
  type ResponseCreateParams, type ResumeCursor,
} from '../../lib/index.js';
import { chatRequestToResponses, createGateway, GatewayHttpError } from '../../lib/gateway/index.js';
import { injectResponse, responseSignals } from '../../angular/index.js';
import { startScriptedProvider, startTestServer } from '../../lib/testing/index.js';

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

streamResponse({ model: 'gpt-5.4-nano', input: 'Say hello' })
  .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
  .subscribe((text) => process.stdout.write(text));

createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (s) => (body += s)).on('end', () => {
    const chat = JSON.parse(body);
    const sub = streamResponse({ model: chat.model, input: chat.messages }, { apiKey: process.env.OPENAI_API_KEY })
      .pipe(toChatChunks({ includeUsage: chat.stream_options?.include_usage }), toChatSSE({ onError: 'event' }))
      .subscribe({ next: (text) => res.write(text), complete: () => res.end(), error: () => res.end() });
    res.on('close', () => sub.unsubscribe());
  });
}).listen(8080);

const socket = connectResponsesSocket({ apiKey: process.env.OPENAI_API_KEY });
socket.response({ model: 'gpt-5.4-nano', input: 'Hi' }).pipe(outputText()).subscribe(render);
from(prompts.map((input, i) => ({ type: 'response.create' as const, stream_id: `lane-${i % 4}`, model: 'gpt-5.4-nano', input })))
  .pipe(laneMux(socket))
  .subscribe((e) => (isLaneError(e) ? report(e) : route(e.stream_id, e)));
socket.close();

const config = { apiKey: process.env.OPENAI_API_KEY };
const reconnect = (c: ResumeCursor) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config);
streamResponse({ model: 'gpt-5.4', input: 'Write the report.', background: true }, config)
  .pipe(resumeFrom(reconnect, { onCursor: (c) => saveCursor(c) }), outputText())
  .subscribe((text) => render(text));
resumeFromCursor(loadCursor(), reconnect).pipe(outputText()).subscribe(render);
retrieveResponseStream('resp_1', {}, config).pipe(resumeFrom(reconnect), accumulateResponse()).subscribe(render);

async function testServer() {
  const server = await startTestServer({ transcripts: { long: longSSE }, faults: [{ type: 'drop', afterEvents: 40 }, { type: 'status', status: 503 }] });
  const cfg = { baseURL: server.baseURL, apiKey: 'test' };
  void cfg; void server.requests;
  await server.close();
}
void testServer;

// README, "Text at a readable pace: smoothText" (and docs/angular.md)
streamResponse({ model: 'gpt-5.4-nano', input: 'Why reactive streams?' }, { baseURL: `${location.origin}/api/v1` })
  .pipe(smoothText({ scheduler: animationFrameScheduler }), outputText())
  .subscribe((text) => (answer.textContent = text));

// README, "Agents: runAgent and defineTool" (and docs/agents.md)
const getWeather = defineTool({
  description: 'The current weather in a city',
  parameters: t.type({
    city: withDescription(t.string, 'City name, e.g. Paris'),
    unit: t.union([t.keyof({ celsius: null, fahrenheit: null }), t.undefined]), // optional
  }),
  execute: ({ city, unit }, { signal }) => fetchWeather(city, unit ?? 'celsius', signal), // value, Promise or Observable
});
const tools = { get_weather: getWeather };
{
  const subscription = runAgent({ model: 'gpt-5.4-mini', input: 'Weather in Paris?' }, { tools: { get_weather: getWeather } })
    .pipe(outputText())
    .subscribe((text) => render(text));
  subscription.unsubscribe();
}
runAgent(request, { tools, asOneResponse: true })
  .pipe(filter((e) => !isAgentEvent(e)), toChatChunks(), toChatSSE())
  .subscribe((text) => res.write(text));

// docs/agents.md
runAgent(
  { model: 'gpt-5.4', input: 'Research this.', background: true },
  { tools, resume: { maxAttempts: 5, onCursor: (c) => saveCursor(c) } }, // or resume: true for the defaults
);
async function scripted() {
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
void scripted;

// README, "Gateway: openai-rx/gateway"
{
  const gateway = createGateway({
    upstream: 'https://api.openai.com/v1', // default: OPENAI_BASE_URL, else the OpenAI API
    log: process.env.REDIS_URL, // an EventLog, a redis:// URL, or 'memory' (the default)
    background: true, // any instance can continue a stream after a crash
  });
  createServer(gateway).listen(8080); // or mount it in Express, Fastify, Nest
  process.on('SIGTERM', () => void gateway.close());
}

// docs/gateway.md
{
  const gateway = createGateway({
    upstream: 'https://api.openai.com/v1',
    log: process.env.REDIS_URL,
    background: true,
    limits: { maxBodyBytes: 16 << 20, maxConcurrentStreams: 10_000 },
    timeouts: { upstream: 600_000, heartbeat: 15_000 },
  });
  createServer(gateway).listen(8080);
  process.on('SIGTERM', () => void gateway.close());
}
{
  const userOfSession = async (token: string | undefined): Promise<string | undefined> => token;
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
  const body = '{}';
  const mapped = chatRequestToResponses(JSON.parse(body));
  if (mapped.ok) {
    streamResponse(mapped.request, { apiKey: process.env.OPENAI_API_KEY })
      .pipe(toChatChunks({ includeUsage: mapped.includeUsage }), toChatSSE())
      .subscribe((text) => process.stdout.write(text));
  } else {
    console.error(mapped.error.status, mapped.error.body); // 400 { error: { message, type, param, code } }
  }
}

// README, "Angular: openai-rx/angular" (and docs/angular.md)
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
  // Your backend (the gateway, or any route serving Responses SSE): never an API key in the page.
  readonly chat = injectResponse({ baseURL: '/api/v1', model: 'gpt-5.4-nano', resume: true, smooth: true });
}

// docs/angular.md
@Component({
  selector: 'one-answer',
  template: `<p>{{ answer.text() }}</p> @if (answer.status() === 'error') { <p>{{ answer.error() }}</p> }`,
})
export class OneAnswer {
  readonly answer = responseSignals(streamResponse({ model: 'gpt-5.4-nano', input: 'Hi' }, { baseURL: `${location.origin}/api/v1` }), { smooth: true });
}
