import { catchError, Observable, throwError, timeout } from 'rxjs';
import { AbortedError, HTTPError, IdleTimeoutError, NetworkError, NotAnEventStreamError } from '../errors.js';
import { redactError, redactThenCut, type Secrets } from '../redact.js';
import { handOverBody } from '../sse/source.js';
import { configSecrets, resolveConfig, type ClientConfig } from './config.js';
import { relayTo, type EventRelay } from './event-relay.js';

/** The most of an error body (or of a 2xx body that is not an event stream) ever read, in bytes. */
export const MAX_ERROR_BODY = 64 * 1024;
/** The longest API message kept on an error, and the longest excerpt of a body that is not JSON. */
const MAX_MESSAGE = 2000;
const MAX_EXCERPT = 200;
const MAX_FIELD = 200;

/**
 * The reason of every abort this module makes (an unsubscribe, a drain that gave up). Made once: nobody
 * sees it (the subscriber is gone), and an abort without a reason would build an error with a stack trace
 * per stream. The user's own signal still ends a stream with `AbortedError`.
 */
const LEFT = new DOMException('the subscriber left the stream', 'AbortError');
const ignore = (): undefined => undefined;

/**
 * A cold Observable of one HTTP stream: nothing is sent before subscribe, the 2xx event-stream body goes
 * through `decode`, a non-2xx answer becomes an `HTTPError` with the API's code and message, a 2xx answer
 * that is not an event stream a `NotAnEventStreamError`. Unsubscribing (or the caller's signal) aborts the
 * request and cancels the body; the abort is tied to the subscription, not to the arrival of the headers.
 * A stream that ended normally (a terminal event, the decoder's end) is not aborted: the rest of its body
 * is read in the background (bounded by `drainAfterEnd`), so its keep-alive connection can be reused.
 */
function fetchStream<T>(
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  config: ClientConfig | undefined,
  decode: (res: Response) => Observable<T>,
  secrets: Secrets,
): Observable<T> {
  return new Observable<T>((subscriber) => {
    // Whatever the server echoed into an error (body, headers, events), secrets and credential shapes leave masked.
    const fail = (e: unknown): void => subscriber.error(redactError(e, secrets));
    let resolved;
    try {
      resolved = resolveConfig(config);
    } catch (e) {
      fail(e);
      return undefined;
    }
    const controller = new AbortController();
    const outer = resolved.signal;
    if (outer?.aborted) {
      fail(new AbortedError());
      return undefined;
    }
    // The decoded events' way out, once the answer is an event stream; it knows when the server finished the stream.
    let relay: EventRelay<T> | undefined;
    let closed = false;
    // The body's reader, handed over by the decoder's reading when it stopped before the body's end.
    let parked: ReadableStreamDefaultReader<Uint8Array> | undefined;
    const abort = (): void => controller.abort(LEFT);
    const release = (reader: ReadableStreamDefaultReader<Uint8Array>): void => {
      if (relay?.ended === true) return drainRest(reader, resolved.drainBytes, resolved.drainMs, abort);
      reader.cancel(LEFT).catch(ignore);
      abort();
    };
    // The caller's abort is final, whenever it comes (before the headers or mid-body): a non-retryable
    // AbortedError, never the interruption a broken connection would look like.
    const onOuterAbort = (): void => {
      relay?.unsubscribe();
      controller.abort();
      fail(new AbortedError());
    };
    outer?.addEventListener('abort', onOuterAbort, { once: true });
    // Copied by Object.assign: `{ ...h }` added to gets a hidden class of its own per request in V8 11 (Node 20).
    const headers: Record<string, string> = Object.assign({}, resolved.headers);
    if (body !== undefined) headers['content-type'] = 'application/json';
    const url = `${resolved.baseURL}${path}`;
    let response: Promise<Response>;
    try {
      response = resolved.fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: controller.signal });
    } catch (e) {
      // A body that cannot be JSON, a fetch that throws instead of rejecting: raised as it is, masked.
      outer?.removeEventListener('abort', onOuterAbort);
      fail(e);
      return undefined;
    }
    response
      .then(async (res) => {
        if (subscriber.closed) {
          await res.body?.cancel().catch(() => undefined);
          return;
        }
        if (!res.ok) {
          fail(await httpErrorOf(res, secrets));
          return;
        }
        const type = res.headers.get('content-type');
        if (type !== null && !isEventStream(type)) {
          fail(await notAnEventStreamOf(res, type, secrets));
          return;
        }
        if (res.body) handOverBody(res.body, (reader) => (closed ? release(reader) : void (parked = reader)));
        relay = relayTo(subscriber, secrets);
        decode(res).subscribe(relay);
      })
      .catch((e: unknown) => {
        if (subscriber.closed) return;
        if (controller.signal.aborted) return fail(new NetworkError('the request was aborted'));
        // The cause is kept (masked like everything raised); the URL carries no credentials (refused by resolveConfig).
        fail(new NetworkError(`${method} ${url} failed: ${messageChain(e)}`, { cause: e, errorCode: systemCode(e) }));
      });
    return () => {
      closed = true;
      outer?.removeEventListener('abort', onOuterAbort);
      relay?.unsubscribe();
      const reader = parked;
      parked = undefined;
      if (reader) release(reader);
      else if (relay?.ended !== true) abort();
    };
  });
}

/** `text/event-stream`, in any case, with or without parameters. A missing content-type is read as SSE (documented). */
export function isEventStream(contentType: string): boolean {
  return contentType.split(';')[0]!.trim().toLowerCase() === 'text/event-stream';
}

/**
 * Reads what is left of a finished stream's body without looking at it, so that the connection is
 * released for reuse at its end; past `maxBytes` or `ms`, `giveUp` aborts. The timer never keeps the process alive.
 */
function drainRest(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number, ms: number, giveUp: () => void): void {
  let left = maxBytes;
  let over = false;
  const stop = (): void => {
    over = true;
    clearTimeout(timer);
  };
  const onRead = (r: ReadableStreamReadResult<Uint8Array>): void => {
    if (over) return;
    if (r.done) return stop();
    left -= r.value.byteLength;
    if (left < 0) {
      stop();
      reader.cancel(LEFT).catch(ignore);
      return giveUp();
    }
    reader.read().then(onRead, stop);
  };
  const timer = setTimeout(() => {
    if (over) return;
    over = true;
    reader.cancel(LEFT).catch(ignore);
    giveUp();
  }, ms);
  (timer as { unref?: () => void }).unref?.();
  reader.read().then(onRead, stop);
}

/**
 * The messages of an error and its causes, e.g. `fetch failed: connect ECONNREFUSED 127.0.0.1:80`. Duck-typed:
 * the runtime's fetch may throw errors of another realm.
 */
function messageChain(e: unknown): string {
  const parts: string[] = [];
  for (let x: unknown = e, depth = 0; typeof x === 'object' && x !== null && depth < 4; x = (x as { cause?: unknown }).cause, depth++) {
    const m = (x as { message?: unknown }).message;
    if (typeof m === 'string' && m !== '' && !parts.includes(m)) parts.push(m);
  }
  return parts.length > 0 ? parts.join(': ') : typeof e === 'string' ? e : 'unknown error';
}

function systemCode(e: unknown): string | undefined {
  for (let x: unknown = e, depth = 0; typeof x === 'object' && x !== null && depth < 4; x = (x as { cause?: unknown }).cause, depth++) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/**
 * Up to `max` bytes of a body as text, read through its reader; then the body is cancelled, which closes
 * the connection: an endless body costs `max` bytes and one chunk, never more.
 */
export async function readBounded(res: Response, max = MAX_ERROR_BODY): Promise<string> {
  if (!res.body) return '';
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = res.body.getReader();
  } catch {
    return '';
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const r = await reader.read();
      if (r.done) break;
      const piece = r.value.byteLength > max - size ? r.value.subarray(0, max - size) : r.value;
      chunks.push(piece);
      size += piece.byteLength;
    }
  } catch {
    // a body that broke: what arrived is all there is
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) bytes.set(c, (at += c.byteLength) - c.byteLength);
  return new TextDecoder().decode(bytes);
}

interface ServerMessage {
  code?: string | null;
  message?: string;
  type?: string | null;
  param?: string | null;
}

/** What an error body says: the OpenAI-style `{"error": {…}}` fields, else a short excerpt of its text. Masked before any cut. */
function serverMessageOf(text: string, secrets: Secrets): ServerMessage {
  const field = (v: unknown, max = MAX_FIELD): string | null => (typeof v === 'string' ? redactThenCut(v, max, secrets) : null);
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown };
    const err = parsed?.error;
    if (err && typeof err === 'object') {
      const e = err as Record<string, unknown>;
      return { code: field(e['code']), message: field(e['message'], MAX_MESSAGE) ?? undefined, type: field(e['type']), param: field(e['param']) };
    }
    const message = field(err, MAX_MESSAGE) ?? field(parsed?.message, MAX_MESSAGE);
    if (message !== null) return { message };
  } catch {
    // not JSON: the text itself
  }
  // An HTML page says most in its title; otherwise its text without tags.
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  const plain = (title ?? text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  return { message: plain ? redactThenCut(plain, MAX_EXCERPT, secrets) : undefined };
}

/** The typed error of a non-2xx answer, from its body (read up to 64 KiB, then the connection is closed). */
export async function httpErrorOf(res: Response, secrets: Secrets = []): Promise<HTTPError> {
  const m = serverMessageOf(await readBounded(res), secrets);
  return new HTTPError(res.status, m.code, m.message, res.headers.get('x-request-id'), m.type, m.param, retryAfterOf(res.headers));
}

/** The typed error of a 2xx answer that is not an event stream, with what the server said (read up to 64 KiB). */
export async function notAnEventStreamOf(res: Response, contentType: string, secrets: Secrets = []): Promise<NotAnEventStreamError> {
  const m = serverMessageOf(await readBounded(res), secrets);
  return new NotAnEventStreamError(res.status, redactThenCut(contentType, MAX_FIELD, secrets), m.message, res.headers.get('x-request-id'));
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date, in ms; `undefined` when absent or unreadable. */
export function retryAfterOf(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const ra = headers.get('retry-after');
  if (ra === null) return undefined;
  const seconds = Number(ra);
  if (ra.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(ra);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** `request$` then a body decoder, with the optional idle timeout over the decoded stream. */
export function streamOf<T>(
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  config: ClientConfig | undefined,
  decode: (res: Response) => Observable<T>,
): Observable<T> {
  const idle = config?.idleTimeoutMs;
  // The key and any credential given in headers.
  const secrets = configSecrets(config);
  // fetchStream masks what it raises itself: no catchError layer for every event to cross.
  const events = fetchStream(method, path, body, config, decode, secrets);
  if (idle === undefined) return events;
  return events.pipe(
    timeout({ each: idle, with: () => throwError(() => new IdleTimeoutError(idle)) }),
    catchError((e: unknown) => throwError(() => redactError(e, secrets))),
  );
}
