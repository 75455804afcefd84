// The Responses routes: a streamed create (recorded in the log as it passes), a resume from the log (from
// any instance, taking a dead producer's stream over when the response runs in the background upstream),
// and cancel.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { catchError, from, lastValueFrom, Observable, throwError, type MonoTypeOperatorFunction, Subscriber } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { checkResponseId, streamResponse, type ResponsesStreamConfig } from '../lib/http/transports.js';
import { fromEventLog } from '../lib/log/from-event-log.js';
import type { LogScope } from '../lib/log/types.js';
import { accumulateResponse } from '../operators/accumulateResponse.js';
import { persistTo } from '../operators/persistTo.js';
import { upstreamConfig, type Caller } from './auth.js';
import { watchCancel } from './cancel-watch.js';
import { admit, sendError, startPump, type GatewayContext } from './context.js';
import { FirstEventTimeout, GatewayHttpError, invalidRequest, upstreamError } from './errors.js';
import { fetchUpstream, relay, requestHeaders } from './forward.js';
import type { ResolvedGatewayOptions } from './options.js';
import { GatewayStreamError, logUnavailable, orLogUnavailable, readerError } from './stream-errors.js';

/**
 * The terminal event a reader of a cancelled stream ends with: `response.cancelled` carrying the response so far,
 * `cancelled` (the pump numbers it); `undefined` while the stream was not cancelled. Without it a reader would see
 * a body cut short, which a resuming client takes for an interruption and reconnects after.
 */
async function cancelledEnd(ctx: GatewayContext, scope: LogScope): Promise<ResponseStreamEvent | undefined> {
  if ((await ctx.log.state(scope))?.end !== 'cancelled') return undefined;
  // Cancelled it is: a log that cannot give the response so far still gives the reader the cancel.
  const response = await cancelledResponse(ctx, scope).catch(() => ({ id: scope.responseId, object: 'response', status: 'cancelled' }));
  return { type: 'response.cancelled', sequence_number: 0, response } as unknown as ResponseStreamEvent;
}

/**
 * The upstream stream's first event within `firstMs` (else a `FirstEventTimeout`), and every event numbered: one
 * the upstream sent without a `sequence_number` (some OpenAI-compatible servers omit it) gets the next one, the
 * SSE `id:` a reconnect resumes after and the log's order. One subscriber for both (each operator is a hop every
 * event crosses; a Subscriber of its own, not an observer object that `subscribe` wraps in two more layers); the
 * timer is cleared by the first event, the error, the end or the unsubscribe.
 */
function numberedWithin(firstMs: number): MonoTypeOperatorFunction<ResponseStreamEvent> {
  return (source) =>
    new Observable<ResponseStreamEvent>((subscriber) => {
      const numbered = new Numbered(subscriber, firstMs);
      source.subscribe(numbered);
      return numbered;
    });
}

class Numbered extends Subscriber<ResponseStreamEvent> {
  private nextNumber = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly sink: Subscriber<ResponseStreamEvent>,
    firstMs: number,
  ) {
    super();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      sink.error(new FirstEventTimeout(`no event within ${firstMs} ms`));
      this.unsubscribe();
    }, firstMs);
    this.add(() => this.stopTimer());
  }

  private stopTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  protected override _next(e: ResponseStreamEvent): void {
    if (this.timer !== undefined) this.stopTimer();
    const seq = e.sequence_number;
    if (typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0) {
      this.nextNumber = Math.max(this.nextNumber, seq + 1);
      this.sink.next(e);
    } else {
      // Object.assign, not `{ ...e, sequence_number }`: an event without one would get a hidden class of its own (V8 11).
      this.sink.next(Object.assign({}, e, { sequence_number: this.nextNumber++ }));
    }
  }

  protected override _error(err: unknown): void {
    this.stopTimer();
    try {
      this.sink.error(err);
    } finally {
      this.unsubscribe();
    }
  }

  protected override _complete(): void {
    this.stopTimer();
    try {
      this.sink.complete();
    } finally {
      this.unsubscribe();
    }
  }
}

/** The upstream config of a stream the gateway records: each event keeps its data: text, forwarded as it came. */
const recordingConfig = (caller: Caller, options: ResolvedGatewayOptions): ResponsesStreamConfig => upstreamConfig(caller, options, true);

/**
 * The caller's stream from the log after `after`, continued from `upstream` when given (a background response).
 * A failure of the log (or any failure once `logFailed()`: the log stopped recording the stream) reaches the
 * reader as `log_unavailable`, never in the log's own words.
 */
function fromLog(ctx: GatewayContext, caller: Caller, id: string, after: number | undefined, upstream: ResponsesStreamConfig | undefined, logFailed?: () => boolean): Observable<ResponseStreamEvent> {
  const { options } = ctx;
  return fromEventLog(ctx.log, id, {
    owner: caller.owner, startingAfter: after, leaseMs: options.leaseMs, notFoundTimeoutMs: options.notFoundTimeoutMs,
    ...(upstream ? { upstream } : {}),
  }).pipe(catchError((e: unknown) => throwError(() => readerError(e, logFailed))));
}

/** The JSON answer to a stream that failed before its first event: the log's failures as a 503 of the gateway's own. */
const startError = (e: unknown): GatewayHttpError => (e instanceof GatewayStreamError ? logUnavailable() : upstreamError(e));

/**
 * `POST /v1/responses` with `stream: true`: the upstream stream, recorded (`persistTo`) under the caller's
 * owner, to the client as SSE. The recording runs apart from the client: one that leaves leaves it running.
 * A client slower than the upstream has its events kept in memory up to `maxPendingBytes`; past that it is
 * fed again from the log once its socket drains, if the log records the stream, else its stream ends
 * (`client_too_slow`). Once the log fails, the client is never sent the log's shorter copy.
 */
export function createResponse(ctx: GatewayContext, res: ServerResponse, caller: Caller, body: Record<string, unknown>): void {
  admit(ctx);
  // A client gone before anything was asked upstream has nothing to come back to: nothing is started for it.
  if (res.destroyed) return;
  const { options, log } = ctx;
  const request = options.background ? { ...body, background: true, store: true } : body;
  // The decoder keeps each event's text: the SSE frame and the log's size reuse it instead of serialising again.
  const config = recordingConfig(caller, options);
  const background = request['background'] === true;
  // A cancel sent to another instance reaches this one through the log: the recording is fenced off, and the
  // upstream stream stops here too (a foreground response can only be cancelled by closing its request).
  const recorded = watchCancel(log, () => producer.stop());
  const producer = ctx.producers.start(
    caller.owner,
    streamResponse(request, config).pipe(
      // The first-event timeout belongs to the upstream stream, not to the client: a producer whose client left
      // before anything came must not wait for an upstream that never answers.
      numberedWithin(options.upstreamTimeoutMs),
      persistTo(recorded, { owner: caller.owner, leaseMs: options.leaseMs, maxBatchDelayMs: options.logBatchDelayMs, onWriteError: 'continue', onWriteFailed: () => (producer.logFailed = true) }),
    ),
  );
  const logFailed = (): boolean => producer.logFailed;
  startPump(ctx, {
    res,
    open: (after, attempt) =>
      attempt === 0
        ? producer.hub
        : fromLog(ctx, caller, producer.responseId!, after, background ? config : undefined, logFailed),
    live: { maxPendingBytes: options.maxPendingBytes, canReread: () => producer.responseId !== undefined && !producer.logFailed },
    onFailedBeforeStart: (e) => {
      // Nothing written and no id the client could resume with: the upstream request is of no use to anyone.
      if (producer.responseId === undefined) producer.stop();
      sendError(ctx, res, startError(e));
    },
    cancelled: () => (producer.responseId === undefined ? Promise.resolve(undefined) : cancelledEnd(ctx, { responseId: producer.responseId, owner: caller.owner })),
  });
}

/** A cursor from `starting_after` or `Last-Event-ID` (the later wins: a browser resends its first URL), else a 400. */
function cursorOf(req: IncomingMessage, query: URLSearchParams): number | undefined {
  const parse = (v: string, param: string): number => {
    if (!/^\d{1,15}$/.test(v.trim())) throw invalidRequest(`${param} must be a sequence number (an integer ≥ 0).`, param);
    return Number(v.trim());
  };
  const q = query.get('starting_after');
  const header = req.headers['last-event-id'];
  const fromQuery = q === null || q === '' ? undefined : parse(q, 'starting_after');
  const fromHeader = typeof header === 'string' && header.trim() !== '' ? parse(header, 'Last-Event-ID') : undefined;
  if (fromQuery === undefined) return fromHeader;
  return fromHeader === undefined ? fromQuery : Math.max(fromQuery, fromHeader);
}

function notFound(id: string): GatewayHttpError {
  return new GatewayHttpError(404, `No response found with id '${id}'.`, { type: 'invalid_request_error', param: 'response_id' });
}

function checkId(id: string): void {
  if (checkResponseId(id)) throw notFound(id.slice(0, 64));
}

/** The stream's state, waiting up to `notFound` ms for one that has not reached the log yet; else a 404. */
async function existing(ctx: GatewayContext, scope: LogScope): Promise<void> {
  if ((await ctx.log.state(scope)) !== undefined) return;
  await ctx.log.wait(scope, undefined, ctx.options.notFoundTimeoutMs);
  if ((await ctx.log.state(scope)) === undefined) throw notFound(scope.responseId);
}

/**
 * Whether the recorded response runs in the background upstream (so it can be continued or cancelled there):
 * its created event says so; with no event yet, a stream nobody holds is a registered background create, and
 * one whose lease is held cannot be told apart (a foreground producer before its first append, or a reader
 * taking a registered background create over): `undefined`.
 */
async function backgroundOf(ctx: GatewayContext, scope: LogScope): Promise<boolean | undefined> {
  const [created] = await ctx.log.read(scope, undefined, 1);
  if (created === undefined) {
    const state = await ctx.log.state(scope);
    return state !== undefined && state.lease === undefined ? true : undefined;
  }
  return (created as { response?: { background?: unknown } }).response?.background === true;
}

/**
 * `GET /v1/responses/{id}?stream=true[&starting_after=N]` (or `Last-Event-ID`): the events after the cursor
 * from the log, then live, ending at the terminal event. A stream whose producer died is taken over (its
 * lease lapsed) and continued from the upstream when the response runs in the background there.
 */
export async function resumeResponse(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, caller: Caller, id: string, query: URLSearchParams): Promise<void> {
  checkId(id);
  const startingAfter = cursorOf(req, query);
  admit(ctx);
  const scope: LogScope = { responseId: id, owner: caller.owner };
  await orLogUnavailable(() => existing(ctx, scope));
  const upstream = (await orLogUnavailable(() => backgroundOf(ctx, scope))) !== false ? recordingConfig(caller, ctx.options) : undefined;
  startPump(ctx, {
    res,
    startingAfter,
    open: (after) => fromLog(ctx, caller, id, after, upstream),
    onFailedBeforeStart: (e) => sendError(ctx, res, startError(e)),
    cancelled: () => cancelledEnd(ctx, scope),
  });
}

/**
 * `POST /v1/responses/{id}/cancel`: only for a stream of the caller's in the log (else 404, never another
 * caller's). Ends the stream in the log (every reader, in every instance, ends; its producer is fenced off),
 * stops this instance's producer (aborting its upstream request), then cancels upstream and answers with the
 * upstream's answer (the cancelled response). The log is cancelled even when the upstream cannot be told.
 */
export async function cancelResponse(ctx: GatewayContext, req: IncomingMessage, res: ServerResponse, caller: Caller, id: string): Promise<void> {
  checkId(id);
  const scope: LogScope = { responseId: id, owner: caller.owner };
  const state = await orLogUnavailable(() => ctx.log.state(scope));
  if (state === undefined) throw notFound(id);
  // Read before the cancel clears the lease. This instance's own producer knows from its created event.
  const local = ctx.producers.get(caller.owner, id);
  const background = local !== undefined ? local.background : await backgroundOf(ctx, scope);
  // The log first: every reader, here and in other instances, then sees the end as a cancel (not as the
  // interruption the upstream's cut would look like), and the producer's next append is fenced off.
  await orLogUnavailable(() => ctx.log.cancel(scope));
  local?.stop();
  // A foreground response is cancelled by closing its request, which the gateway has just done (here, or
  // through the log on the instance streaming it); the upstream would refuse the cancel (400: background
  // only). The answer is what was generated, as the upstream answers a cancel: the response, `cancelled`.
  if (state.end === undefined && background === false) return answerCancelled(ctx, scope, id, res);
  const controller = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  const up = await fetchUpstream(ctx.options, {
    method: 'POST', path: `/responses/${encodeURIComponent(id)}/cancel`, headers: requestHeaders(req, caller), signal: controller.signal,
  });
  // Undetermined, and the upstream refuses: it was a foreground response (ended above by the log's cancel).
  if (background === undefined && state.end === undefined && up.status === 400) {
    await up.body?.cancel().catch(() => undefined);
    return answerCancelled(ctx, scope, id, res);
  }
  await relay(up, res, controller.signal);
}

/** What was generated of a stream in the log, as the response, `cancelled`. */
async function cancelledResponse(ctx: GatewayContext, scope: LogScope): Promise<Record<string, unknown>> {
  const events = await ctx.log.read(scope, undefined);
  const response = await lastValueFrom(from(events).pipe(accumulateResponse()), { defaultValue: undefined });
  return { ...response, id: scope.responseId, status: 'cancelled' };
}

/** Answers a foreground response's cancel: what was generated, as the response, `cancelled`. */
async function answerCancelled(ctx: GatewayContext, scope: LogScope, id: string, res: ServerResponse): Promise<void> {
  const body = JSON.stringify({ ...(await cancelledResponse(ctx, scope)), id });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
