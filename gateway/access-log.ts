// The access log: one structured line per request, written when its answer is done (or the client left).
// It names the route by its pattern (never the raw path, which may carry anything), the owner by a hash,
// and never a key, a header or a body.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { countsWrites } from './chunk-write.js';

/** One request, as the access log records it. */
export interface AccessLogEntry {
  /** When the request arrived (ISO 8601). */
  readonly time: string;
  readonly method: string;
  /** The route's pattern (`GET /v1/responses/{response_id}`, an operator's `passThrough` pattern), `null` when none matched. */
  readonly route: string | null;
  /** A hash of the caller's owner (`null` before or without auth): the same owner, the same hash; never the owner itself. */
  readonly owner: string | null;
  /** The status answered; 499 when the client left before any answer. */
  readonly status: number;
  /** The response the request created or named, when there is one. */
  readonly responseId: string | null;
  /** Events written to the client (a stream's SSE events, a chat stream's chunks). */
  readonly events: number;
  readonly durationMs: number;
  /** Body bytes written to the client. */
  readonly bytesOut: number;
}

/** `false` (default): none; `'stdout'`: one JSON line per request on standard output; a function: called with each entry. */
export type AccessLogOption = false | 'stdout' | ((entry: AccessLogEntry) => void);

/** What a request's handling tells its line as it goes. */
interface Exchange {
  route: string | null;
  owner: string | null;
  responseId: string | null;
  events: number;
  bytes: number;
}

const exchanges = new WeakMap<ServerResponse, Exchange>();

/** The owner's pseudonym: a hash in a space of its own (the same owner hashes alike on every instance). */
export function ownerHash(owner: string): string {
  return createHash('sha256').update(`openai-rx access log\0${owner}`).digest('hex').slice(0, 16);
}

/** Notes the route matched (its pattern). */
export function noteRoute(res: ServerResponse, pattern: string): void {
  const x = exchanges.get(res);
  if (x) x.route = pattern;
}

/** Notes the caller's owner (hashed at once: the owner itself is not kept). */
export function noteOwner(res: ServerResponse, owner: string): void {
  const x = exchanges.get(res);
  if (x) x.owner = ownerHash(owner);
}

/** Notes the response the request names or created (the first one noted stays). */
export function noteResponseId(res: ServerResponse, id: string | undefined): void {
  const x = exchanges.get(res);
  if (x && x.responseId === null && typeof id === 'string') x.responseId = id.slice(0, 256);
}

/** Counts one event written to the client. */
export function countEvent(res: ServerResponse): void {
  const x = exchanges.get(res);
  if (x) x.events++;
}

/** Whether this request is logged (so that a route may skip what only the log would use). */
export const isLogged = (res: ServerResponse): boolean => exchanges.has(res);

const byteLength = (chunk: unknown, encoding: unknown): number => {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
};

/** Starts the line of one request: counts its body bytes, and writes the line once its answer is done. */
export function startAccessLog(option: AccessLogOption, req: IncomingMessage, res: ServerResponse): void {
  if (option === false) return;
  const started = Date.now();
  const time = new Date(started).toISOString();
  const x: Exchange = { route: null, owner: null, responseId: null, events: 0, bytes: 0 };
  exchanges.set(res, x);
  const write = res.write;
  const end = res.end;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    x.bytes += byteLength(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as ServerResponse['write'];
  // A chunk the pump writes to the socket itself (gateway/chunk-write.ts) is counted here too.
  countsWrites(res, res.write, (bytes) => (x.bytes += bytes));
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== 'function') x.bytes += byteLength(chunk, rest[0]);
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as ServerResponse['end'];
  res.once('close', () => {
    const entry: AccessLogEntry = {
      time,
      method: (req.method ?? 'GET').slice(0, 16),
      route: x.route,
      owner: x.owner,
      status: res.headersSent ? res.statusCode : 499,
      responseId: x.responseId,
      events: x.events,
      durationMs: Date.now() - started,
      bytesOut: x.bytes,
    };
    emit(option, entry);
  });
}

/** Writes a line; whatever the application's function throws (or rejects with) stays here: the request is answered. */
function emit(option: Exclude<AccessLogOption, false>, entry: AccessLogEntry): void {
  try {
    if (option === 'stdout') {
      process.stdout.write(`${JSON.stringify(entry)}\n`);
      return;
    }
    const r: unknown = option(entry);
    if (typeof (r as Partial<Promise<unknown>> | undefined)?.then === 'function') (r as Promise<unknown>).then(undefined, () => undefined);
  } catch {
    // The application's logger failed: the request has been answered; the line is lost, nothing else.
  }
}

/** The option as given, checked: `false`, `'stdout'` or a function. */
export function checkAccessLog(value: unknown): AccessLogOption | undefined {
  if (value === undefined || value === false || value === 'stdout' || typeof value === 'function') return (value ?? false) as AccessLogOption;
  return undefined;
}
