import { Observable, type Subscriber } from 'rxjs';
import { concatBytes } from '../bytes.js';
import { DurableStreamError, NetworkError, OpenAIRxError } from '../errors.js';
import { readBounded, retryAfterOf } from '../http/request.js';
import { redactThenCut } from '../redact.js';
import { readSSE } from './from-durable-stream-sse.js';
import { END, isJsonType, isTrue, messagesOf, PROGRESS, utf8, type Batch, type ExchangeContext, type ReadState, type Step } from './from-durable-stream-steps.js';

// One HTTP exchange of `fromDurableStream` (a catch-up read, a long-poll, one SSE connection) as an Observable of
// what it learnt, in order. The reader's state moves only as a step is delivered, so a retry starts exactly after
// the last batch that went out: never a batch twice, never a gap.

const ignore = (): undefined => undefined;
const LEFT = new DOMException('the reader unsubscribed', 'AbortError');
const MAX_REASON = 200;

/** The request URL: the caller's query kept, the protocol's parameters set, keys in order (section 10.1). */
function requestUrl(ctx: ExchangeContext, state: ReadState, live: 'sse' | 'long-poll' | undefined): string {
  const u = new URL(ctx.url.href);
  const q = u.searchParams;
  q.set('offset', state.offset);
  if (live !== undefined) q.set('live', live);
  else q.delete('live');
  if (live !== undefined && state.cursor !== undefined) q.set('cursor', state.cursor);
  else q.delete('cursor');
  q.sort();
  return u.href;
}

/** The exchange the state calls for: a catch-up read until caught up (or when not live), then the live mode's. */
export function exchange(ctx: ExchangeContext, state: ReadState): Observable<Step> {
  const live = state.caughtUp && ctx.live !== false ? ctx.live : undefined;
  return new Observable<Step>((subscriber) => {
    const controller = new AbortController();
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let done = false;
    const url = requestUrl(ctx, state, live);
    const fail = (e: unknown): void => {
      if (!done) subscriber.error(e);
    };
    const run = async (): Promise<void> => {
      let res: Response;
      try {
        res = await ctx.fetch(url, { method: 'GET', headers: ctx.headers, signal: controller.signal });
      } catch (e) {
        throw networkError(ctx, `GET ${ctx.shownUrl} failed`, e);
      }
      if (done) {
        res.body?.cancel().catch(ignore);
        return;
      }
      if (res.status !== 200 && res.status !== 204) throw await errorOf(ctx, res);
      if (res.body) reader = res.body.getReader();
      if (live === 'sse') return readSSE(ctx, state, res, reader, subscriber);
      const body = reader === undefined ? new Uint8Array(0) : await readAll(reader);
      if (!done) deliverRead(ctx, state, res, body, live === 'long-poll', subscriber);
    };
    run().then(
      () => {
        if (!done) subscriber.complete();
      },
      // The package's own errors as they are; anything else is the body breaking off (undici's `terminated`, a reset).
      (e: unknown) => fail(e instanceof OpenAIRxError ? e : networkError(ctx, `reading ${ctx.shownUrl} failed`, e)),
    );
    return () => {
      done = true;
      // A reader the response's body was locked to: cancelling it ends the body (from(body) would leave it open).
      reader?.cancel(LEFT).catch(ignore);
      controller.abort(LEFT);
    };
  });
}

function networkError(ctx: ExchangeContext, what: string, e: unknown): NetworkError {
  const errorCode = systemCode(e);
  return new NetworkError(`${what}: ${redactThenCut(messageOf(e), MAX_REASON, ctx.secrets)}`, errorCode === undefined ? { cause: e } : { cause: e, errorCode });
}

function systemCode(e: unknown): string | undefined {
  for (let x: unknown = e, depth = 0; typeof x === 'object' && x !== null && depth < 4; x = (x as { cause?: unknown }).cause, depth++) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function messageOf(e: unknown): string {
  const parts: string[] = [];
  for (let x: unknown = e, depth = 0; typeof x === 'object' && x !== null && depth < 4; x = (x as { cause?: unknown }).cause, depth++) {
    const m = (x as { message?: unknown }).message;
    if (typeof m === 'string' && m !== '' && !parts.includes(m)) parts.push(m);
  }
  return parts.length > 0 ? parts.join(': ') : String(e);
}

async function errorOf(ctx: ExchangeContext, res: Response): Promise<DurableStreamError> {
  const text = (await readBounded(res, 4096)).replace(/\s+/g, ' ').trim();
  const reason = text === '' ? undefined : redactThenCut(text, MAX_REASON, ctx.secrets);
  return new DurableStreamError(res.status, ctx.shownUrl, reason, retryAfterOf(res.headers));
}

async function readAll(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    chunks.push(r.value);
  }
  return concatBytes(chunks);
}

/** A catch-up or long-poll answer: its batch, then where the reader stands. */
function deliverRead(ctx: ExchangeContext, state: ReadState, res: Response, body: Uint8Array, longPoll: boolean, subscriber: Subscriber<Step>): void {
  const h = res.headers;
  const next = h.get('stream-next-offset');
  if (next === null || next === '') throw new DurableStreamError(res.status, ctx.shownUrl, 'the answer has no Stream-Next-Offset', undefined, 'protocol_error');
  const upToDate = isTrue(h.get('stream-up-to-date'));
  const closed = isTrue(h.get('stream-closed'));
  const cursor = h.get('stream-cursor');
  if (res.status === 200 && h.get('content-type') !== null) state.json = isJsonType(h.get('content-type'));
  const batch: Batch | undefined =
    res.status === 204 ? undefined : state.json ? nonEmpty(next, messagesOf(utf8(body))) : body.byteLength > 0 ? { offset: next, bytes: body } : undefined;
  // A partial chunk with no data that does not move on would be read again forever.
  if (batch === undefined && !upToDate && !closed && next === state.offset && !longPoll)
    throw new DurableStreamError(res.status, ctx.shownUrl, 'an empty chunk that is not up to date and does not move the offset', undefined, 'protocol_error');
  state.offset = next;
  if (cursor !== null && cursor !== '') state.cursor = cursor;
  if (upToDate || closed) state.caughtUp = true;
  subscriber.next(batch ?? PROGRESS);
  if (closed || (upToDate && ctx.live === false)) subscriber.next(END);
}

function nonEmpty(offset: string, messages: unknown[]): Batch | undefined {
  return messages.length > 0 ? { offset, messages } : undefined;
}
