// The test server's WebSocket mode, on the same port: the same transcripts, faults, pacing and records as
// over HTTP, unless the WebSocket options say otherwise.
import type { IncomingHttpHeaders, Server } from 'node:http';
import { redact } from './http-messages.js';
import type { Fault, Loaded, Mutable, RecordedRequest, TestServerOptions } from './http-server-types.js';
import type { ResponsesWebSocketServerOptions, WebSocketResponseFault, WebSocketResponseRecord } from './ws-server-types.js';

/** What the WebSocket side shares with the HTTP server. */
export interface HTTPSide {
  readonly server: Server;
  readonly options: TestServerOptions;
  readonly requests: Array<Mutable<RecordedRequest>>;
  /** The Responses transcript a request names, chosen as over HTTP. */
  pick(headers: IncomingHttpHeaders, body: unknown): Loaded | undefined;
  /** The next fault: a queued one, else the one `options.faults` chooses for the record. */
  nextFault(record: RecordedRequest | undefined): Fault | undefined;
  /** Wakes those waiting for the request to arrive. */
  arrived(record: RecordedRequest): void;
  /** Wakes those waiting for the request to end. */
  closed(record: RecordedRequest): void;
}

/** The loopback WebSocket server's options for `ws`, attached to the HTTP server at `/v1/responses`. */
export function webSocketOptions(side: HTTPSide, ws: Omit<ResponsesWebSocketServerOptions, 'attach'>): ResponsesWebSocketServerOptions {
  const { options, requests } = side;
  const wsRecords = new Map<number, Mutable<RecordedRequest>>();
  const recordOf = (r: WebSocketResponseRecord): Mutable<RecordedRequest> | undefined => wsRecords.get(r.index);
  return {
    ...ws,
    attach: { server: side.server, path: '/v1/responses' },
    ...(ws.chunkDelayMs === undefined && options.chunkDelayMs !== undefined ? { chunkDelayMs: options.chunkDelayMs } : {}),
    respond:
      ws.respond ??
      ((request, _index, r) => {
        const t = side.pick(r.headers, request);
        const rec = recordOf(r);
        if (rec && t) rec.transcript = t.name;
        return t ? t.parsed.events.map((e) => e.raw).join('') : undefined;
      }),
    fault: (request, r) => {
      const rec = recordOf(r);
      const f: Fault | WebSocketResponseFault | undefined = ws.fault ? ws.fault(request, r) : side.nextFault(rec);
      if (rec) {
        rec.fault = f;
        if (f?.type === 'status') rec.status = f.status;
      }
      return f;
    },
    onResponseStart: (r) => {
      const index = requests.length;
      const lane = r.lane;
      const record: Mutable<RecordedRequest> = {
        index, requestId: `req_test_${index}`, method: 'WS', path: '/v1/responses', query: {}, headers: redact(r.headers), body: r.request,
        route: 'responses.create', transcript: undefined, fault: undefined, status: 200, eventsSent: 0, bytesSent: 0,
        openedAt: r.openedAt, closedAt: undefined, outcome: undefined, connection: -1, transport: 'websocket', ...(lane !== undefined ? { lane } : {}),
      };
      requests.push(record);
      wsRecords.set(r.index, record);
      side.arrived(record);
      options.onRequest?.(record);
      ws.onResponseStart?.(r);
    },
    onResponseEnd: (r) => {
      const rec = recordOf(r);
      if (rec) {
        wsRecords.delete(r.index);
        rec.eventsSent = r.framesSent;
        rec.bytesSent = r.bytesSent;
        rec.closedAt = r.closedAt;
        rec.outcome = r.outcome;
        side.closed(rec);
        options.onClose?.(rec);
      }
      ws.onResponseEnd?.(r);
    },
  };
}
