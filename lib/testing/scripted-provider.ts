// A fake provider for agent tests: each request is answered by a script that may look at what the request
// carries (its tool outputs, their call ids, previous_response_id), over HTTP SSE and over WebSocket mode on
// the same port, and every request is recorded. Like the API, it refuses a request that leaves a function
// call of the conversation without its output (400 "No tool output found for function call …").
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { responsesTranscript } from './transcripts.js';
import { startResponsesWebSocketServer, type ResponsesWebSocketServer } from './ws-server.js';

/** A function call the scripted model makes; `arguments` as an object is sent as JSON. */
export interface ScriptedCall {
  readonly name: string;
  readonly arguments: unknown;
  /** Default `call_<request index>_<position>`. */
  readonly call_id?: string;
}

/**
 * One answer. Its output items come in this order: `reasoning` (with `encrypted_content`, as with
 * `include: ['reasoning.encrypted_content']`), `items` as given (a `shell_call`, an `mcp_approval_request`…),
 * `calls`, then `text` as an assistant message. A string is a whole Responses SSE transcript (its response id
 * is replaced). `error` answers with an HTTP status (over WebSocket: an `error` event with that status).
 */
export type ScriptedReply =
  | string
  | {
      readonly text?: string;
      readonly calls?: readonly ScriptedCall[];
      readonly items?: ReadonlyArray<Record<string, unknown>>;
      readonly reasoning?: { readonly encrypted_content: string; readonly summary?: string };
      /** Ends the response `incomplete` (reason `max_output_tokens`) instead of `completed`. */
      readonly incomplete?: boolean;
    }
  | { readonly error: { readonly status: number; readonly message?: string; readonly code?: string } };

/** What the provider received, and what it answered. */
export interface ScriptedRequest {
  /** 0-based, across both transports, in arrival order. */
  readonly index: number;
  readonly transport: 'http' | 'websocket';
  /** The JSON body (HTTP) or the `response.create` event (WebSocket), as received. */
  readonly body: Record<string, unknown>;
  /** The id of the response that answers it. */
  readonly responseId: string;
  readonly previousResponseId: string | undefined;
  /** The input as items (a string input is one user message). */
  readonly input: ReadonlyArray<Record<string, unknown>>;
  /** The `*_output` / `mcp_approval_response` items of the input, in order. */
  readonly toolOutputs: ReadonlyArray<Record<string, unknown>>;
  /** The `output` of the `function_call_output` for `callId`, if the request carries one. */
  output(callId: string): unknown;
  /** The WebSocket lane (`stream_id`), if any. */
  readonly lane?: string;
  /** The status answered: 200, or the 400 of a conversation with a call left unanswered, or a scripted error. */
  status: number;
}

export interface ScriptedProviderOptions {
  /** The answer to request n (0-based): a reply, or a function of the request. */
  readonly turns?: ReadonlyArray<ScriptedReply | ((request: ScriptedRequest) => ScriptedReply)>;
  /** Or one function answering every request (several agents at once, say); used when `turns` has no entry left. */
  readonly respond?: (request: ScriptedRequest) => ScriptedReply;
  /** Milliseconds between the events of an answer, over HTTP and WebSocket. Default 0 (HTTP: all at once; WebSocket: one frame per turn of the event loop). */
  readonly chunkDelay?: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
}

export interface ScriptedProvider {
  /** `http://127.0.0.1:<port>/v1`: the `baseURL` for HTTP (and `connectResponsesSocket({ baseURL })`). */
  readonly baseURL: string;
  /** `ws://127.0.0.1:<port>/v1/responses`. */
  readonly webSocketURL: string;
  readonly requests: readonly ScriptedRequest[];
  readonly webSocket: ResponsesWebSocketServer;
  /** Resolves once request `index` has arrived. */
  waitForRequest(index: number): Promise<ScriptedRequest>;
  /**
   * How the HTTP answer to request `index` ended, once it has: `'completed'` when all of it was written,
   * `'aborted'` when the client closed the connection first (a cancelled turn). Only for HTTP requests.
   */
  answerEnded(index: number): Promise<'completed' | 'aborted'>;
  close(): Promise<void>;
}

type Item = Record<string, unknown>;

function inputOf(body: Item): Item[] {
  const input = body['input'];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? input.filter((i): i is Item => typeof i === 'object' && i !== null) : [];
}

const isOutput = (i: Item): boolean => typeof i['type'] === 'string' && (/_output$/.test(i['type']) || i['type'] === 'mcp_approval_response');

/** The output items of a reply, with the response id `id` and call ids numbered by `index`. */
function itemsOf(reply: Exclude<ScriptedReply, string | { error: unknown }>, id: string, index: number): Item[] {
  const items: Item[] = [];
  const tag = id.replace(/^resp_/, '');
  if (reply.reasoning) {
    const summary = reply.reasoning.summary === undefined ? [] : [{ type: 'summary_text', text: reply.reasoning.summary }];
    items.push({ id: `rs_${tag}`, type: 'reasoning', summary, encrypted_content: reply.reasoning.encrypted_content });
  }
  for (const item of reply.items ?? []) items.push({ ...item });
  (reply.calls ?? []).forEach((c, i) => {
    const args = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {});
    items.push({ id: `fc_${tag}_${i}`, type: 'function_call', status: 'completed', arguments: args, call_id: c.call_id ?? `call_${index}_${i}`, name: c.name });
  });
  if (reply.text !== undefined) {
    items.push({ id: `msg_${tag}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }] });
  }
  return items;
}

/** A complete Responses event sequence for the items: created, in_progress, each item added (deltas) and done, the terminal event. */
export function scriptedEvents(items: readonly Item[], id: string, request: Item, incomplete = false): Array<Item & { type: string }> {
  const response = (status: string, output: unknown[]) => ({
    id, object: 'response', created_at: 1764400000, status, model: typeof request['model'] === 'string' ? request['model'] : 'scripted', output,
    usage: status === 'in_progress' ? null : { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
    error: null, incomplete_details: incomplete && status !== 'in_progress' ? { reason: 'max_output_tokens' } : null,
    previous_response_id: request['previous_response_id'] ?? null, store: request['store'] ?? true,
  });
  const events: Array<Item & { type: string }> = [];
  const push = (e: Item & { type: string }) => events.push({ ...e, sequence_number: events.length });
  push({ type: 'response.created', response: response('in_progress', []) });
  push({ type: 'response.in_progress', response: response('in_progress', []) });
  items.forEach((item, oi) => {
    const itemId = item['id'];
    if (item['type'] === 'function_call') {
      push({ type: 'response.output_item.added', output_index: oi, item: { ...item, status: 'in_progress', arguments: '' } });
      push({ type: 'response.function_call_arguments.delta', item_id: itemId, output_index: oi, delta: item['arguments'] });
      push({ type: 'response.function_call_arguments.done', item_id: itemId, output_index: oi, name: item['name'], arguments: item['arguments'] });
    } else if (item['type'] === 'message') {
      const text = String((item['content'] as Array<{ text: string }>)[0]?.text ?? '');
      const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      push({ type: 'response.output_item.added', output_index: oi, item: { ...item, status: 'in_progress', content: [] } });
      push({ type: 'response.content_part.added', item_id: itemId, output_index: oi, content_index: 0, part });
      for (const delta of text.match(/\S+\s*|\s+/g) ?? []) push({ type: 'response.output_text.delta', item_id: itemId, output_index: oi, content_index: 0, delta, logprobs: [] });
      push({ type: 'response.output_text.done', item_id: itemId, output_index: oi, content_index: 0, text, logprobs: [] });
      push({ type: 'response.content_part.done', item_id: itemId, output_index: oi, content_index: 0, part: { ...part, text } });
    } else {
      push({ type: 'response.output_item.added', output_index: oi, item });
    }
    push({ type: 'response.output_item.done', output_index: oi, item });
  });
  push({ type: incomplete ? 'response.incomplete' : 'response.completed', response: response(incomplete ? 'incomplete' : 'completed', [...items]) });
  return events;
}

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
    let events: Array<Item & { type: string }>;
    if (typeof reply === 'string') {
      events = reply.split(/\n\n+/).flatMap((block) => {
        const data = block.split('\n').find((l) => l.startsWith('data:'))?.replace(/^data: ?/, '');
        return data ? [JSON.parse(data) as Item & { type: string }] : [];
      });
    } else {
      events = scriptedEvents(itemsOf(reply, r.responseId, r.index), r.responseId, r.body, reply.incomplete === true);
    }
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
    const delay = options.chunkDelay ?? 0;
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
    ...(options.chunkDelay !== undefined ? { chunkDelay: options.chunkDelay } : {}),
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
