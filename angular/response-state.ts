// The signals of one answer and the subscription that feeds them (shared by responseSignals and injectResponse).
import { signal, type Signal, type WritableSignal } from '@angular/core';
import type * as t from 'io-ts';
import { Subject, Subscription, type Observable } from 'rxjs';
import { ResponseStreamTracker } from '../lib/decode/tracker.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { accumulateResponse, type AssembledResponse } from '../operators/accumulateResponse.js';
import { accumulateText, type TextSnapshot } from '../operators/accumulateText.js';
import { collectToolCalls, type ToolCall } from '../operators/collectToolCalls.js';
import { outputObject } from '../operators/outputObject.js';
import { outputText } from '../operators/outputText.js';
import type { PartialValue } from '../operators/partialJson.js';
import { smoothText, type SmoothTextOptions } from '../operators/smoothText.js';

/**
 * Where an answer stands: `idle` (nothing asked yet), `streaming`, `done` (the stream completed: see
 * `response().status` for `completed` / `incomplete`), `error` (see `error()`: a failed response, also one
 * passed as a value, a dropped connection that could not be resumed, a bad event), `cancelled` (stopped by the
 * application).
 */
export type ResponseStatus = 'idle' | 'streaming' | 'done' | 'error' | 'cancelled';

/** An answer as Angular signals. */
export interface ResponseSignals {
  /** The answer's text so far (every `output_text` part, in output order), smoothed when asked. */
  readonly text: Signal<string>;
  /** Reasoning text and reasoning summaries so far, parts separated by a blank line. */
  readonly reasoning: Signal<string>;
  /** Tool calls in output order, in progress (`state: 'partial'`) and complete. */
  readonly toolCalls: Signal<readonly ToolCall[]>;
  /** The response assembled from the events so far (`undefined` before the first one). */
  readonly response: Signal<AssembledResponse | undefined>;
  readonly status: Signal<ResponseStatus>;
  /** What ended the stream with status `error`, else `undefined`. */
  readonly error: Signal<unknown>;
}

/** A structured answer as signals (with a `codec`): its JSON as it streams, then the decoded value. */
export interface ResponseObjectSignals<T> {
  /** The answer's JSON parsed so far (see `outputObject`), `undefined` before any of it; the decoded value at the end. */
  readonly partial: Signal<PartialValue<T> | undefined>;
  /** The value decoded with the codec once the response is complete, else `undefined` (a rejection is in `error()`). */
  readonly object: Signal<T | undefined>;
}

/** How the text is paced: `true` for smoothText's defaults, or its options. */
export type SmoothOption = boolean | SmoothTextOptions;

/** The writable side of {@link ResponseSignals}. */
export class ResponseState implements ResponseSignals {
  readonly text: WritableSignal<string> = signal('');
  readonly reasoning: WritableSignal<string> = signal('');
  readonly toolCalls: WritableSignal<readonly ToolCall[]> = signal([]);
  readonly response: WritableSignal<AssembledResponse | undefined> = signal(undefined);
  readonly status: WritableSignal<ResponseStatus> = signal('idle');
  readonly error: WritableSignal<unknown> = signal(undefined);
  readonly partial: WritableSignal<unknown> = signal(undefined);
  readonly object: WritableSignal<unknown> = signal(undefined);

  /** The read-only signals, to hand out. */
  views(): ResponseSignals {
    return {
      text: this.text.asReadonly(),
      reasoning: this.reasoning.asReadonly(),
      toolCalls: this.toolCalls.asReadonly(),
      response: this.response.asReadonly(),
      status: this.status.asReadonly(),
      error: this.error.asReadonly(),
    };
  }

  /** The read-only object signals, to hand out with a codec. */
  objectViews<T>(): ResponseObjectSignals<T> {
    return { partial: this.partial.asReadonly() as Signal<PartialValue<T> | undefined>, object: this.object.asReadonly() as Signal<T | undefined> };
  }

  /** Back to a blank answer (a new send). */
  reset(): void {
    this.text.set('');
    this.reasoning.set('');
    this.toolCalls.set([]);
    this.response.set(undefined);
    this.status.set('idle');
    this.error.set(undefined);
    this.partial.set(undefined);
    this.object.set(undefined);
  }

  /**
   * Lets go of `sub` (what `connect` returned), cancelling its request: an answer still streaming is then
   * `cancelled`. `false` when there was nothing left to let go.
   */
  cancel(sub: Subscription | undefined): boolean {
    if (sub === undefined || sub.closed) return false;
    sub.unsubscribe();
    if (this.status() === 'streaming') this.status.set('cancelled');
    return true;
  }

  /**
   * Subscribes to `events$` once and feeds every signal from it. With `smooth`, the events go through
   * smoothText first (its events form), so the tool calls, the response and the final status keep pace with
   * the text: nothing shows before the words that led to it. With `codec`, the answer's JSON feeds `partial`,
   * and its decoded value `object` (outputObject's last value) when the stream completes.
   */
  connect(events$: Observable<ResponseStreamEvent>, smooth: SmoothOption = false, codec?: t.Mixed): Subscription {
    const paced$ = smooth === false ? events$ : events$.pipe(smoothText({ finish: 'paced', ...(smooth === true ? {} : smooth) }));
    const sub = new Subscription();
    const fail = (err: unknown): void => {
      sub.unsubscribe();
      this.error.set(err);
      this.status.set('error');
    };
    const hub = new Subject<ResponseStreamEvent>();
    const reasoning = new ReasoningText();
    // The views subscribe first, to one hub: the source is subscribed to once.
    sub.add(hub.pipe(outputText()).subscribe({ next: (t) => this.text.set(t), error: fail }));
    sub.add(hub.pipe(accumulateText({ kind: ['reasoning_text', 'reasoning_summary_text'] })).subscribe({ next: (s) => this.reasoning.set(reasoning.update(s)), error: fail }));
    const calls = new Map<number, ToolCall>();
    sub.add(
      hub.pipe(collectToolCalls({ partial: true, incomplete: true })).subscribe({
        next: (c) => {
          calls.set(c.outputIndex, c);
          this.toolCalls.set([...calls.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]));
        },
        error: fail,
      }),
    );
    sub.add(hub.pipe(accumulateResponse()).subscribe({ next: (r) => this.response.set(r), error: fail }));
    if (codec !== undefined) {
      sub.add(hub.pipe(outputObject(codec)).subscribe({ next: (v) => this.partial.set(v), error: fail, complete: () => this.object.set(this.partial()) }));
    }
    this.status.set('streaming');
    // A failure passed as a value (a transport with `errorEvents: 'value'`): the stream then completes, and the answer failed.
    let failure: ResponseStreamEvent | undefined;
    sub.add(
      paced$.subscribe({
        next: (e) => {
          if (e.type === 'response.failed' || e.type === 'error') failure = e;
          else if (e.type === 'response.completed' || e.type === 'response.incomplete') failure = undefined;
          hub.next(e);
        },
        error: (err: unknown) => fail(err),
        complete: () => {
          hub.complete();
          if (sub.closed) return;
          if (failure === undefined) this.status.set('done');
          else {
            const tracker = new ResponseStreamTracker();
            tracker.responseId = this.response()?.id;
            fail(tracker.errorOf(failure));
          }
        },
      }),
    );
    return sub;
  }
}

/**
 * Reasoning parts joined in output order. The part being appended is nearly always the last one: then the text
 * is the cached text before it plus its own (no copy of the whole), so a long reasoning stays linear.
 */
class ReasoningText {
  private readonly keys: string[] = [];
  private readonly texts = new Map<string, string>();
  private before = '';

  update(s: TextSnapshot): string {
    const key = `${String(s.outputIndex).padStart(10, '0')}:${s.kind === 'reasoning_text' ? 0 : 1}:${String(s.contentIndex).padStart(10, '0')}`;
    const isNew = !this.texts.has(key);
    this.texts.set(key, s.text);
    if (isNew) {
      this.keys.push(key);
      this.keys.sort();
    }
    const last = this.keys[this.keys.length - 1]!;
    // A new part, or a change to a part before the last: the text before the last part is joined anew.
    if (isNew || key !== last) this.before = this.join(this.keys.length - 1);
    const tail = this.texts.get(last) ?? '';
    return this.keys.length === 1 ? tail : `${this.before}\n\n${tail}`;
  }

  private join(n: number): string {
    return this.keys.slice(0, n).map((k) => this.texts.get(k) ?? '').join('\n\n');
  }
}
