import { Observable, type OperatorFunction, type Subscription } from 'rxjs';
import { DecodeError, malformedJSON } from '../errors.js';
import { decodeTyped, VALIDATE_MODES, type ValidateMode } from '../events/decode.js';
import { oneOf } from '../options.js';
import { responseEventTable, type ResponseStreamEvent } from '../events/responses.js';
import { checkSSELimits, type SSELimits } from '../sse/scanner.js';
import { textOf, textOfChunks, type BodyEnd, type StreamSource } from '../sse/source.js';
import { decodeBody, isConnectionFailure, type BodyDecoder, type ValueSink } from './body.js';
import { NOT_JSON, providerError } from './provider-error.js';
import { keepRawData } from './raw-data.js';
import { relayedDelta } from './relayed-delta.js';
import { checkSequenceOptions, ResponseStreamTracker, type SequenceOptions } from './tracker.js';
import { keepWarm } from '../warmup.js';

export interface ResponsesSSEOptions extends SSELimits, SequenceOptions {
  /** `'strict'` (default) checks every documented event against its codec; `'off'` skips codecs for speed. */
  readonly validate?: ValidateMode;
  /**
   * Keep each event's `data:` text (read it with `rawDataOf(event)`), for a relay that forwards events as
   * they came. Only an event that is exactly its parsed data gets one (not a provider's error report). Default false.
   */
  readonly keepRawData?: boolean;
  /**
   * @internal With `keepRawData`, for a relay that forwards events as they came (the gateway): a delta of a flat
   * shape is not parsed (lib/decode/relayed-delta.ts); its fields besides `type` and `sequence_number` are read from
   * its text when asked.
   */
  readonly relayDeltas?: boolean;
}

/**
 * Decodes a Responses API SSE body into typed events.
 *
 * Completes after `response.completed` or `response.incomplete`; `response.failed` and `error` are
 * emitted and then end it with a `ResponseStreamError` (see `errorEvents`). A provider's error in another
 * shape (`data: {"error": {…}}`, `event: error` with a flat or non-JSON payload) is emitted as an `error`
 * event in the reference shape, keeping the provider's code, message and param. A body that ends before a
 * terminal event ends it with `StreamInterruptedError`. Duplicated `sequence_number`s are dropped.
 *
 * ```ts
 * fromResponsesSSE(await fetch(url, init))
 *   .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
 *   .subscribe((text) => process.stdout.write(text));
 *
 * // A captured stream (`curl -N …`, a test fixture) as a string:
 * fromResponsesSSE(captured).pipe(outputText()).subscribe((text) => render(text));
 * ```
 */
export function fromResponsesSSE(source: StreamSource, options: ResponsesSSEOptions = {}): Observable<ResponseStreamEvent> {
  checkResponsesSSEOptions(options);
  return responsesFromText(textOf(source), options);
}

/**
 * The same decoder as an operator over body chunks (bytes or text) as they arrive; the source completing
 * is the end of the body.
 *
 * ```
 * chunks:  --a----b---c--|      (a+b+c = "event: response.created\ndata: {…}\n\n…")
 *   decodeResponsesSSE()
 * events:  -------x---(yz|)
 * ```
 *
 * ```ts
 * // body$: the body's chunks as an Observable (relayed from another process, a Node stream…)
 * body$.pipe(decodeResponsesSSE(), ofType('response.completed')).subscribe((e) => console.log(e.response.usage));
 * ```
 */
export function decodeResponsesSSE(options: ResponsesSSEOptions = {}): OperatorFunction<Uint8Array | string, ResponseStreamEvent> {
  checkResponsesSSEOptions(options);
  return (chunks) => responsesFromText(textOfChunks(chunks), options);
}

/** @internal Throws the `InvalidOptionError` of the first option the decoder cannot work with (at the call, not per stream). */
export function checkResponsesSSEOptions(options: ResponsesSSEOptions): void {
  oneOf('validate', options.validate, VALIDATE_MODES);
  checkSSELimits(options);
  checkSequenceOptions(options);
}

function responsesFromText(text: Observable<string | BodyEnd>, options: ResponsesSSEOptions): Observable<ResponseStreamEvent> {
  return decodeBody(text, options, () => responsesDecoder(options));
}

function responsesDecoder(options: ResponsesSSEOptions): BodyDecoder<ResponseStreamEvent> {
  keepWarm('responses decoding', responsesShapes);
  const keepRaw = options.keepRawData === true;
  return new ResponsesDecoder(options.validate ?? 'strict', new ResponseStreamTracker(options), keepRaw, keepRaw && options.relayDeltas === true);
}

/** A class (not closures per stream) so that its optimised code survives a full GC between streams. */
class ResponsesDecoder implements BodyDecoder<ResponseStreamEvent> {
  constructor(
    private readonly validate: ValidateMode,
    private readonly tracker: ResponseStreamTracker,
    private readonly keepRaw: boolean,
    private readonly relay: boolean,
  ) {}

  message(name: string | undefined, data: string, unterminated: boolean, out: ValueSink<ResponseStreamEvent>): 'complete' | Error | undefined {
    const tracker = this.tracker;
    if (this.relay) {
      const delta = relayedDelta(data, name);
      if (delta !== undefined) {
        const event = delta as unknown as ResponseStreamEvent;
        if (!tracker.admit(event)) return undefined;
        out.next(event);
        return tracker.terminal(event);
      }
    }
    if (data === '[DONE]') return tracker.interrupted('the stream sent [DONE] before a terminal event'); // some proxies add it
    let u: unknown;
    try {
      u = JSON.parse(data);
    } catch {
      if (unterminated) throw tracker.interrupted('the stream ended inside an event');
      u = NOT_JSON;
    }
    let event: ResponseStreamEvent;
    try {
      if (u === NOT_JSON) throw malformedJSON(data, name);
      event = decodeTyped(u, responseEventTable, this.validate, name) as ResponseStreamEvent;
    } catch (e) {
      // Not a valid event: a provider's error report in one of its own shapes ends the stream as an `error` event.
      const report = e instanceof DecodeError ? providerError(name, u, data) : undefined;
      if (report === undefined) throw e;
      event = report as ResponseStreamEvent;
    }
    if (!tracker.admit(event)) return undefined;
    if (this.keepRaw && event === u) keepRawData(event, data);
    out.next(event);
    return tracker.terminal(event);
  }

  end(complete: boolean): 'complete' | Error {
    return this.tracker.interrupted(complete ? undefined : 'the stream ended inside a UTF-8 character');
  }

  // A broken connection mid-body is an interruption: resumable from the last sequence number.
  broken(e: unknown): Error {
    return isConnectionFailure(e) ? this.tracker.interrupted(`the connection broke (${e instanceof Error ? e.message : 'unknown'})`) : (e as Error);
  }
}

/**
 * One decoding kept open (on a body that never sends anything) once the first one starts, unless warm-ups are off
 * (lib/warmup.ts): the hidden classes (maps) of what a stream is made of (its RxJS subscribers, the decoding, the
 * scanner, the decoder, the tracker) then survive a full GC while no stream is open, and so does the optimised
 * code that checks for them (V8 drops code whose embedded maps are collected). Nothing of a user's stream is kept.
 */
const responsesShapes = (): Subscription =>
  new Observable<string>(() => undefined).pipe(decodeResponsesSSE()).subscribe({
    next: () => undefined,
    error: () => undefined,
    complete: () => undefined,
  });
