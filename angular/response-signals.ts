import { assertInInjectionContext, DestroyRef, inject, type Injector } from '@angular/core';
import type * as t from 'io-ts';
import type { Observable } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { ResponseState, type ResponseObjectSignals, type ResponseSignals, type SmoothOption } from './response-state.js';

export interface ResponseSignalsOptions {
  /** The injector whose destruction releases the subscription. Default: the current injection context's. */
  readonly injector?: Injector;
  /** Pace the text with smoothText (`true` for its defaults, or its options). Default `false`. */
  readonly smooth?: SmoothOption;
  /**
   * An io-ts codec for a structured answer (pair it with `jsonSchemaFormat` on the request): then `partial`
   * (its JSON as it streams) and `object` (the decoded value once complete) are signals too, and a rejection,
   * a refusal or an answer cut short is in `error()`.
   */
  readonly codec?: t.Mixed;
}

/** {@link ResponseSignals} with a way to let go early. */
export interface ResponseSignalsRef extends ResponseSignals {
  /** Unsubscribes (the request is cancelled); the status becomes `cancelled` if it was `streaming`. */
  stop(): void;
}

/**
 * Binds a stream of Responses events to signals: `text`, `reasoning`, `toolCalls`, `response`, `status`,
 * `error`, and with a `codec`, `partial` and `object` (see {@link ResponseObjectSignals}). Subscribes at once, to the stream once; the subscription (and so the request) is released when
 * the injection context is destroyed (its `DestroyRef`: a component, a service, an environment injector), and
 * the status is then `cancelled`.
 * Call it in an injection context (a constructor, a field initializer) or pass `injector`.
 *
 * ```ts
 * @Component({ template: `<p>{{ answer.text() }}</p> @if (answer.status() === 'error') { <p>{{ answer.error() }}</p> }` })
 * class Answer {
 *   readonly answer = responseSignals(streamResponse({ model, input: 'Hi' }, { baseURL: '/api/v1' }), { smooth: true });
 * }
 * ```
 */
export function responseSignals<C extends t.Mixed>(
  events$: Observable<ResponseStreamEvent>,
  options: ResponseSignalsOptions & { readonly codec: C },
): ResponseSignalsRef & ResponseObjectSignals<t.TypeOf<C>>;
export function responseSignals(events$: Observable<ResponseStreamEvent>, options?: ResponseSignalsOptions): ResponseSignalsRef;
export function responseSignals(events$: Observable<ResponseStreamEvent>, options: ResponseSignalsOptions = {}): ResponseSignalsRef & Partial<ResponseObjectSignals<unknown>> {
  const destroyRef = destroyRefOf(options.injector, responseSignals);
  const state = new ResponseState();
  const sub = state.connect(events$, options.smooth ?? false, options.codec);
  const stop = (): void => {
    state.cancel(sub);
  };
  destroyRef.onDestroy(stop);
  return { ...state.views(), ...(options.codec !== undefined && state.objectViews()), stop };
}

/** The DestroyRef of `injector`, else of the current injection context (a clear Angular error outside one). */
export function destroyRefOf(injector: Injector | undefined, caller: (...args: never[]) => unknown): DestroyRef {
  if (injector !== undefined) return injector.get(DestroyRef);
  assertInInjectionContext(caller);
  return inject(DestroyRef);
}
