// A fake provider for agent tests: each request is answered by a script that may look at what the request
// carries (its tool outputs, their call ids, previous_response_id), over HTTP SSE and over WebSocket mode on
// the same port, and every request is recorded. Like the API, it refuses a request that leaves a function
// call of the conversation without its output (400 "No tool output found for function call …").
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { durationMs, invalidOption } from '../lib/options.js';
import { replyEvents } from './scripted-events.js';
import type { ScriptedProvider, ScriptedProviderOptions, ScriptedRequest } from './scripted-provider-types.js';
import { responsesTranscript } from './transcripts.js';
import { startResponsesWebSocketServer } from './ws-server.js';

export type { ScriptedCall, ScriptedProvider, ScriptedProviderOptions, ScriptedReply, ScriptedRequest } from './scripted-provider-types.js';
export { scriptedEvents } from './scripted-events.js';

type Item = Record<string, unknown>;

function inputOf(body: Item): Item[] {
  const input = body['input'];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? input.filter((i): i is Item => typeof i === 'object' && i !== null) : [];
}

const isOutput = (i: Item): boolean => typeof i['type'] === 'string' && (/_output$/.test(i['type']) || i['type'] === 'mcp_approval_response');

/**
 * Starts the scripted provider on a free loopback port. POST `/v1/responses` (stream: true) answers over
 * SSE; `ws://…/v1/responses` speaks WebSocket mode (lanes, `previous_response_id` known per connection).
 *
 * ```ts
 * const provider = await startScriptedProvider({
 *   turns: [
 *     { calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
 *     (req) => ({ text: `It is ${String(req.output('call_0_0'))}.` }),
 *   ],
 * });
 * await lastValueFrom(runAgent({ model: 'm', input: 'Weather?' }, { tools, config: { baseURL: provider.baseURL, apiKey: 'test' } }));
 * provider.requests[1].previousResponseId;   // the first response's id
 * await provider.close();
 * ```
 */
export async function startScriptedProvider(options: ScriptedProviderOptions): Promise<ScriptedProvider> {
  durationMs('chunkDelayMs', options.chunkDelayMs);
  if (options.turns !== undefined && !Array.isArray(options.turns)) throw invalidOption('turns', 'an array of turns', options.turns);
  const requests: ScriptedRequest[] = [];
  const waiters = new Map<number, Array<(r: ScriptedRequest) => void>>();
  /** Function calls of each response, to check that the next request answers them all. */
  const callsOf = new Map<string, string[]>();
  const sockets = new Set<Socket>();
  let httpResponses = 0;
  /** How each HTTP answer ended, by request index, settled when its response closes. */
  const endings = new Map<number, { promise: Promise<'completed' | 'aborted'>; resolve: (e: 'completed' | 'aborted') => void }>();
  const ending = (index: number) => {
    let e = endings.get(index);
    if (!e) {
      let resolve!: (v: 'completed' | 'aborted') => void;
      const promise = new Promise<'completed' | 'aborted'>((r) => (resolve = r));
      e = { promise, resolve };
      endings.set(index, e);
    }
    return e;
  };

  const record = (transport: 'http' | 'websocket', body: Item, responseId: string, lane: string | undefined): ScriptedRequest => {
    const input = inputOf(body);
    const toolOutputs = input.filter(isOutput);
    const prev = body['previous_response_id'];
    const r: ScriptedRequest = {
      index: requests.length, transport, body, responseId, previousResponseId: typeof prev === 'string' ? prev : undefined, input, toolOutputs,
      output: (callId) => toolOutputs.find((o) => o['type'] === 'function_call_output' && o['call_id'] === callId)?.['output'],
      ...(lane !== undefined ? { lane } : {}), status: 200,
    };
    requests.push(r);
    for (const w of waiters.get(r.index) ?? []) w(r);
    waiters.delete(r.index);
    return r;
  };

  /** The call ids the request should answer and does not, as the API checks them. */
  const unanswered = (r: ScriptedRequest): string[] => {
    const expected = [...(r.previousResponseId ? callsOf.get(r.previousResponseId) ?? [] : [])];
    for (const i of r.input) if (i['type'] === 'function_call' && typeof i['call_id'] === 'string') expected.push(i['call_id']);
    const answered = new Set(r.toolOutputs.map((o) => o['call_id']));
    return expected.filter((id) => !answered.has(id));
  };

  /** The reply to a request, or an error status. */
  const answer = (r: ScriptedRequest): { events: Array<Item & { type: string }> } | { status: number; message: string; code?: string } => {
    const missing = unanswered(r);
    if (missing.length > 0) return { status: 400, message: `No tool output found for function call ${missing[0]}.` };
    const turn = options.turns?.[r.index];
    const reply = turn === undefined ? options.respond?.(r) : typeof turn === 'function' ? turn(r) : turn;
    if (reply === undefined) return { status: 500, message: `the script has no answer for request ${r.index}` };
    if (typeof reply === 'object' && 'error' in reply) return { status: reply.error.status, message: reply.error.message ?? `HTTP ${reply.error.status}`, ...(reply.error.code ? { code: reply.error.code } : {}) };
    const events = replyEvents(reply, r);
    const final = [...events].reverse().find((e) => typeof e['response'] === 'object')?.['response'] as { id?: unknown; output?: unknown } | undefined;
    const calls = Array.isArray(final?.output) ? (final.output as Item[]).filter((i) => i['type'] === 'function_call').map((i) => String(i['call_id'])) : [];
    callsOf.set(r.responseId, calls);
    return { events };
  };

  const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== '/v1/responses') return sendError(res, 404, 'not found');
    let text = '';
    for await (const c of req) text += String(c);
    let body: Item;
    try {
      body = JSON.parse(text) as Item;
    } catch {
      return sendError(res, 400, 'the body is not JSON');
    }
    const r = record('http', body, `resp_http${++httpResponses}`, undefined);
    const ended = ending(r.index);
    res.on('close', () => ended.resolve(res.writableFinished ? 'completed' : 'aborted'));
    const a = answer(r);
    if ('status' in a) {
      r.status = a.status;
      return sendError(res, a.status, a.message, a.code);
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const sse = a.events.map((e) => responsesTranscript([e]));
    const delay = options.chunkDelayMs ?? 0;
    if (delay <= 0) {
      res.end(sse.join(''));
      return;
    }
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(sse[i++]);
      if (i >= sse.length) {
        clearInterval(timer);
        res.end();
      }
    }, delay);
    res.on('close', () => clearInterval(timer));
  }

  function sendError(res: ServerResponse, status: number, message: string, code?: string): void {
    const payload = JSON.stringify({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code: code ?? null } });
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
    res.end(payload);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolve());
  });

  // WebSocket mode on the same port: the loopback WebSocket server keeps lanes, ids and previous_response_id per
  // connection; the scripted answer (or the refusal) is chosen here.
  const pending = new Map<number, { events: Array<Item & { type: string }> } | { status: number; message: string; code?: string }>();
  const webSocket = await startResponsesWebSocketServer({
    attach: { server, path: '/v1/responses' },
    ...(options.chunkDelayMs !== undefined ? { chunkDelayMs: options.chunkDelayMs } : {}),
    fault: (request, rec) => {
      const r = record('websocket', request, rec.responseId, rec.lane);
      const a = answer(r);
      pending.set(rec.index, a);
      if (!('status' in a)) return undefined;
      r.status = a.status;
      return { type: 'status', status: a.status, message: a.message, ...(a.code ? { code: a.code } : {}) };
    },
    respond: (_request, _index, rec) => {
      const a = pending.get(rec.index);
      pending.delete(rec.index);
      return a && 'events' in a ? responsesTranscript(a.events) : undefined;
    },
  });

  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const origin = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    baseURL: `http://${origin}/v1`,
    webSocketURL: `ws://${origin}/v1/responses`,
    requests,
    webSocket,
    waitForRequest: (index) =>
      new Promise((resolve) => {
        const r = requests[index];
        if (r) resolve(r);
        else waiters.set(index, [...(waiters.get(index) ?? []), resolve]);
      }),
    answerEnded: (index) => ending(index).promise,
    close: async () => {
      await webSocket.close();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
      await stopped;
    },
  };
}
