import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE } from '../lib/decode/responses-sse.js';
import { invalidOption, portNumber } from '../lib/options.js';
import { toChatChunks } from '../operators/toChatChunks.js';
import { toChatSSE } from '../operators/toChatSSE.js';
import { readBody, redact, routeOf, sendError, sendJSON } from './http-messages.js';
import type { Fault, Loaded, Mutable, RecordedConnection, RecordedRequest, TestServer, TestServerOptions } from './http-server-types.js';
import { type HTTPSide, webSocketOptions } from './http-server-websocket.js';
import { modelsOf } from './http-models.js';
import { writeEvents } from './http-sse-writer.js';
import { finalResponseOf, parseTranscript, sequenceOf, type ParsedTranscript } from './transcripts.js';
import { startResponsesWebSocketServer } from './ws-server.js';

export type { CloseOutcome, Fault, RecordedConnection, RecordedRequest, TestRoute, TestServer, TestServerOptions } from './http-server-types.js';

const TRANSCRIPT_HEADER = 'x-openai-rx-transcript';


/**
 * Starts an OpenAI-compatible server on the loopback interface (a real `node:http` server on a free
 * port) that serves recorded transcripts, with fault injection per request:
 * `POST /v1/responses`, `GET /v1/responses/{id}?stream=true&starting_after=N`, `GET /v1/responses/{id}`,
 * `POST /v1/chat/completions`; and `GET /v1/models` (`/{id}`): the transcripts' names and the models they were
 * recorded with (these requests take no fault).
 *
 * ```ts
 * const server = await startTestServer({ transcripts: { long: sse }, faults: [{ type: 'drop', afterEvents: 40 }] });
 * streamResponse({ model: 'long', input: 'hi' }, { baseURL: server.baseURL, apiKey: 'test' });
 * await server.close();
 * ```
 */
export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  if (typeof options.transcripts !== 'object' || options.transcripts === null) throw invalidOption('transcripts', 'an object of transcripts by name', options.transcripts);
  if (options.faults !== undefined && !Array.isArray(options.faults) && typeof options.faults !== 'function') throw invalidOption('faults', 'an array of faults or a function', options.faults);
  portNumber('port', options.port);
  const loaded = new Map<string, Loaded>();
  const startedAt = Math.floor(Date.now() / 1000);
  for (const [name, sse] of Object.entries(options.transcripts)) loaded.set(name, { name, parsed: parseTranscript(sse) });
  const responses = new Map<string, Loaded>();
  const script: Fault[] = [];
  if (Array.isArray(options.faults)) script.push(...(options.faults as readonly Fault[]));
  const faultFn = typeof options.faults === 'function' ? options.faults : undefined;
  const nextFault = (record: RecordedRequest | undefined): Fault | undefined => script.shift() ?? (record ? faultFn?.(record) : undefined);
  const requests: Array<Mutable<RecordedRequest>> = [];
  const connections: Array<Mutable<RecordedConnection>> = [];
  const sockets = new Map<Socket, number>();
  const arrivals = new Map<number, Array<(r: RecordedRequest) => void>>();
  const closings = new Map<number, Array<(r: RecordedRequest) => void>>();
  let closing = false;

  const notify = (waiters: Map<number, Array<(r: RecordedRequest) => void>>, r: RecordedRequest) => {
    for (const w of waiters.get(r.index) ?? []) w(r);
    waiters.delete(r.index);
  };

  const pick = (kind: 'responses' | 'chat', headers: IncomingMessage['headers'], body: unknown): Loaded | undefined => {
    const header = headers[TRANSCRIPT_HEADER];
    const model = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
    const names = [typeof header === 'string' ? header : undefined, typeof model === 'string' ? model : undefined, options.defaultTranscript];
    const named = (k: 'responses' | 'chat') => {
      for (const name of names) {
        const t = name === undefined ? undefined : loaded.get(name);
        if (t && t.parsed.kind === k) return t;
      }
      return undefined;
    };
    const firstOf = (k: 'responses' | 'chat') => [...loaded.values()].find((t) => t.parsed.kind === k);
    if (kind === 'chat' && options.chatFromResponses !== false) {
      // A chat transcript the request names, else a Responses one it names (as chat chunks), else the first of either.
      const t = named('chat') ?? named('responses') ?? firstOf('chat') ?? firstOf('responses');
      return t?.parsed.kind === 'responses' ? asChat(t) : t;
    }
    return named(kind) ?? firstOf(kind);
  };

  // Responses transcripts as chat chunks, converted once each (a promise until the first chat request needs it).
  const chatVersions = new Map<string, Loaded>();
  const pendingChat = new Map<string, Promise<void>>();
  const asChat = (t: Loaded): Loaded => chatVersions.get(t.name) ?? { name: t.name, parsed: { kind: 'chat', events: [], responseId: undefined } };
  const convertToChat = (t: Loaded): Promise<void> => {
    let p = pendingChat.get(t.name);
    if (!p) {
      const sse = t.parsed.events.map((e) => e.raw).join('');
      p = lastValueFrom(fromResponsesSSE(sse, { validate: 'off', errorEvents: 'value' }).pipe(toChatChunks({ includeUsage: true }), toChatSSE({ onError: 'event' }), toArray()))
        .then((body) => body.join(''), (e: unknown) => `event: error\ndata: ${JSON.stringify({ error: { message: e instanceof Error ? e.message : String(e), type: 'server_error', code: null } })}\n\n`)
        .then((sseText) => {
          chatVersions.set(t.name, { name: t.name, parsed: parseTranscript(sseText) });
        });
      pendingChat.set(t.name, p);
    }
    return p;
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 500);
      else res.destroy();
    });
  });

  server.on('connection', (socket) => {
    const index = connections.length;
    connections.push({ index, openedAt: Date.now(), closedAt: undefined });
    sockets.set(socket, index);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      const c = connections[index];
      if (c) c.closedAt = Date.now();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const query = Object.fromEntries(url.searchParams);
    const method = req.method ?? 'GET';
    const body = method === 'POST' ? await readBody(req) : undefined;
    const { route, id } = routeOf(method, url.pathname, query);
    const index = requests.length;
    const record: Mutable<RecordedRequest> = {
      index, requestId: `req_test_${index}`, method, path: url.pathname, query, headers: redact(req.headers), body, route,
      transcript: undefined, fault: undefined, status: undefined, eventsSent: 0, bytesSent: 0,
      openedAt: Date.now(), closedAt: undefined, outcome: undefined, connection: sockets.get(req.socket) ?? -1,
    };
    requests.push(record);
    res.setHeader('x-request-id', record.requestId);
    let dropped = false;
    res.on('close', () => {
      record.closedAt = Date.now();
      record.outcome = dropped ? 'dropped' : res.writableFinished ? 'completed' : closing ? 'server-closed' : 'client-closed';
      notify(closings, record);
      options.onClose?.(record);
    });
    notify(arrivals, record);
    options.onRequest?.(record);

    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      record.status = 401;
      sendError(res, 401);
      return;
    }
    if (route === 'unknown') {
      record.status = 404;
      sendError(res, 404, { message: `No route for ${method} ${url.pathname}.` });
      return;
    }
    if (route === 'models.list' || route === 'models.retrieve') {
      // No fault: a client that lists the models first leaves a fault script to the requests it was written for.
      const models = modelsOf(loaded.values(), startedAt);
      const found = route === 'models.list' ? { object: 'list', data: models } : models.find((m) => m.id === id);
      record.status = found ? 200 : 404;
      if (found) sendJSON(res, found);
      else sendError(res, 404, { message: `The model '${id ?? ''}' does not exist or you do not have access to it.`, code: 'model_not_found' });
      return;
    }

    const fault = nextFault(record);
    record.fault = fault;
    if (fault?.type === 'status') {
      record.status = fault.status;
      sendError(res, fault.status, fault);
      return;
    }

    let transcript: Loaded | undefined;
    let events = [] as ParsedTranscript['events'];
    if (route === 'responses.create' || route === 'chat.create') {
      if (route === 'chat.create' && options.chatFromResponses !== false) await Promise.all([...loaded.values()].filter((t) => t.parsed.kind === 'responses').map(convertToChat));
      transcript = pick(route === 'chat.create' ? 'chat' : 'responses', req.headers, body);
      if (!transcript) {
        record.status = 404;
        sendError(res, 404, { message: 'No transcript for this request.' });
        return;
      }
      if (transcript.parsed.responseId !== undefined) responses.set(transcript.parsed.responseId, transcript);
      events = transcript.parsed.events;
      const streaming = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
      if (!streaming) {
        record.transcript = transcript.name;
        if (route === 'chat.create') {
          record.status = 400;
          sendError(res, 400, { message: 'This test server answers chat completions with stream: true only.' });
        } else {
          record.status = 200;
          sendJSON(res, finalResponseOf(transcript.parsed) ?? {});
        }
        return;
      }
    } else {
      transcript = id === undefined ? undefined : responses.get(id);
      if (!transcript) {
        record.status = 404;
        sendError(res, 404, { message: `No response found with id '${id ?? ''}'.` });
        return;
      }
      if (route === 'responses.retrieve') {
        record.transcript = transcript.name;
        if (fault?.type === 'drop') {
          dropped = true;
          res.destroy();
        } else if (fault?.type !== 'stall') {
          record.status = 200;
          sendJSON(res, finalResponseOf(transcript.parsed) ?? {});
        }
        return;
      }
      const after = query['starting_after'] === undefined ? undefined : Number(query['starting_after']);
      events = after === undefined || Number.isNaN(after) ? transcript.parsed.events : transcript.parsed.events.filter((e) => (sequenceOf(e) ?? Infinity) > after);
    }
    record.transcript = transcript.name;
    record.status = 200;
    writeEvents(res, record, events, fault, options, () => {
      dropped = true;
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host ?? '127.0.0.1';
  const hostInURL = host.includes(':') ? `[${host}]` : host;
  const side: HTTPSide = {
    server, options, requests, nextFault,
    pick: (headers, body) => pick('responses', headers, body),
    arrived: (r) => notify(arrivals, r),
    closed: (r) => notify(closings, r),
  };
  const webSocket = options.webSocket ? await startResponsesWebSocketServer(webSocketOptions(side, options.webSocket)) : undefined;

  const waitFor = (waiters: Map<number, Array<(r: RecordedRequest) => void>>, index: number, ready: (r: RecordedRequest) => boolean) =>
    new Promise<RecordedRequest>((resolve) => {
      const r = requests[index];
      if (r && ready(r)) {
        resolve(r);
        return;
      }
      waiters.set(index, [...(waiters.get(index) ?? []), resolve]);
    });

  return {
    baseURL: `http://${hostInURL}:${port}/v1`,
    port,
    requests,
    connections,
    inject: (...faults) => {
      script.push(...faults);
    },
    clearFaults: () => script.splice(0).length,
    waitForRequest: (index) => waitFor(arrivals, index, () => true),
    waitForClose: (index) => waitFor(closings, index, (r) => r.outcome !== undefined),
    webSocket,
    close: async () => {
      closing = true;
      // Upgraded sockets are no longer the HTTP server's to close: the WebSocket side ends them first.
      await webSocket?.close();
      const open = requests.filter((r) => r.outcome === undefined).map((r) => waitFor(closings, r.index, (x) => x.outcome !== undefined));
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const s of sockets.keys()) s.destroy();
      // Resolve only when every record says how its connection ended.
      await Promise.all([stopped, ...open]);
    },
  };
}
