import { computed, signal, type Injector, type Signal } from '@angular/core';
import type * as t from 'io-ts';
import type { Observable, Subscription } from 'rxjs';
import { InvalidOptionError } from '../lib/errors.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { retrieveResponseStream, streamResponse, type ResponsesStreamConfig } from '../lib/http/transports.js';
import { autoResumeOf, exponentialBackoff, resumeFrom, type AutoResumeOptions, type Reconnect } from '../operators/resumeFrom.js';
import { ResponseState, type ResponseObjectSignals, type ResponseSignals, type SmoothOption } from './response-state.js';
import { destroyRefOf } from './response-signals.js';

/** Where the answers come from: a function, or the application's own backend. */
export interface InjectResponseOptions<I = string> {
  /**
   * Opens the answer to one input. Default, with `baseURL`: `streamResponse({ model, input, ...body }, { baseURL, headers, fetch })`.
   * In a browser, point it at the application's own backend (the gateway, or any route serving Responses SSE): never an API key in the page.
   */
  readonly stream?: (input: I) => Observable<ResponseStreamEvent>;
  /**
   * The backend's base URL (e.g. `'/api/v1'`, the gateway's `/v1`), used when `stream` is not given. A path is
   * taken from the page's address (`location.href`).
   */
  readonly baseURL?: string;
  readonly model?: string;
  /** More request fields (`instructions`, `tools`, `background`…) for the default `stream`. */
  readonly body?: Readonly<Record<string, unknown>>;
  /** Headers and fetch for the default transport (a session cookie goes along by itself on the same origin). */
  readonly headers?: Record<string, string>;
  readonly fetch?: typeof fetch;
  /**
   * Resume after a dropped connection, from the last event received (through `resumeFrom`): `true` for the
   * defaults, or resumeFrom's options (attempts, delayMs, which errors count) and a `reconnect`. The default
   * reconnect, with `baseURL`, is `GET {baseURL}/responses/{id}?stream=true&starting_after=N`, as the gateway
   * serves. Off by default.
   */
  readonly resume?: boolean | AutoResumeOptions;
  /**
   * Pace the text with smoothText (`true` for its defaults, or its options); the tool calls, the response and the
   * status then keep pace with it. Default `false`, as for responseSignals: the signals follow the stream as it comes.
   */
  readonly smooth?: SmoothOption;
  /**
   * An io-ts codec for a structured answer (pair it with `jsonSchemaFormat` in `body.text.format`): then
   * `partial` and `object` are signals too (see responseSignals); a rejection or a refusal is in `error()`.
   */
  readonly codec?: t.Mixed;
  /** The injector whose destruction cancels the answer in flight. Default: the current injection context's. */
  readonly injector?: Injector;
}

/** A chat box's controller: one answer at a time, as signals. */
export interface ResponseController<I = string> extends ResponseSignals {
  /** Asks: cancels the answer in flight, if any, and starts a new one. Does nothing once the injection context is destroyed. */
  send(input: I): void;
  /** Cancels the answer in flight (status `cancelled`, not `error`: the application chose to stop). */
  stop(): void;
  /** Asks the last input again (after an error, a stop, or to get another answer). */
  retry(): void;
  /** The last input sent, or `undefined`. */
  readonly input: Signal<I | undefined>;
  /** `status() === 'streaming'`. */
  readonly busy: Signal<boolean>;
  /** A dropped connection is being resumed (between the drop and the first event after it). */
  readonly reconnecting: Signal<boolean>;
}

/**
 * A typed controller for a chat box: `send(input)`, `stop()`, `retry()` and the answer's signals (`text`,
 * `reasoning`, `toolCalls`, `response`, `status`, `error`, plus `busy`, `reconnecting`, `input`). A new send
 * cancels the one in flight; `stop()` is a cancellation (`cancelled`), told apart from a dropped connection
 * (`error`, or a resume when `resume` is set). The answer in flight is cancelled when the injection context
 * is destroyed. Works with zoneless change detection and with Zone.js.
 *
 * ```ts
 * @Component({
 *   template: `
 *     <p>{{ chat.text() }}</p>
 *     <input #q /> <button (click)="chat.send(q.value)" [disabled]="chat.busy()">Ask</button>
 *     @if (chat.busy()) { <button (click)="chat.stop()">Stop</button> }`,
 * })
 * class ChatBox {
 *   readonly chat = injectResponse({ baseURL: '/api/v1', model: 'gpt-5.4-nano', resume: true, smooth: true });
 * }
 * ```
 */
export function injectResponse<C extends t.Mixed, I = string>(options: InjectResponseOptions<I> & { readonly codec: C }): ResponseController<I> & ResponseObjectSignals<t.TypeOf<C>>;
export function injectResponse<I = string>(options: InjectResponseOptions<I>): ResponseController<I>;
export function injectResponse<I = string>(options: InjectResponseOptions<I>): ResponseController<I> & Partial<ResponseObjectSignals<unknown>> {
  const destroyRef = destroyRefOf(options.injector, injectResponse);
  const open = openerOf(options);
  const resume = autoResumeOf(options.resume);
  const reconnect = resume && reconnectOf(options, resume);
  const state = new ResponseState();
  const input = signal<I | undefined>(undefined);
  const reconnecting = signal(false);
  let current: Subscription | undefined;
  let sent = false;
  let destroyed = false;

  const cancel = (): void => {
    const c = current;
    current = undefined;
    if (state.cancel(c)) reconnecting.set(false);
  };

  const send = (value: I): void => {
    if (destroyed) return; // nothing would ever cancel it
    cancel();
    state.reset();
    reconnecting.set(false);
    input.set(value);
    sent = true;
    let events$: Observable<ResponseStreamEvent>;
    try {
      events$ = open(value);
    } catch (e) {
      state.error.set(e);
      state.status.set('error');
      return;
    }
    if (resume && reconnect) {
      const delayOption = resume.delayMs ?? exponentialBackoff();
      events$ = events$.pipe(
        resumeFrom(reconnect, {
          ...resume,
          delayMs: (attempt, error) => {
            reconnecting.set(true);
            return typeof delayOption === 'number' ? delayOption : delayOption(attempt, error);
          },
          onCursor: (c) => {
            if (reconnecting()) reconnecting.set(false);
            resume.onCursor?.(c);
          },
        }),
      );
    }
    current = state.connect(events$, options.smooth ?? false, options.codec);
  };

  destroyRef.onDestroy(() => {
    destroyed = true;
    cancel();
  });

  return {
    ...state.views(),
    ...(options.codec !== undefined && state.objectViews()),
    input: input.asReadonly(),
    busy: computed(() => state.status() === 'streaming'),
    reconnecting: reconnecting.asReadonly(),
    send,
    stop: cancel,
    retry: () => {
      if (sent) send(input() as I);
    },
  };
}

function configOf(options: InjectResponseOptions<unknown>): ResponsesStreamConfig {
  return { baseURL: absolute(options.baseURL), ...(options.headers && { headers: options.headers }), ...(options.fetch && { fetch: options.fetch }) };
}

/** A path such as `'/api/v1'` (the page's own backend) made absolute against the page's address; elsewhere as given. */
function absolute(baseURL: string | undefined): string | undefined {
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  if (baseURL === undefined || page === undefined || /^[a-z][a-z\d+.-]*:/i.test(baseURL)) return baseURL;
  return new URL(baseURL, page).href;
}

function openerOf<I>(options: InjectResponseOptions<I>): (input: I) => Observable<ResponseStreamEvent> {
  if (options.stream !== undefined) return options.stream;
  if (options.baseURL === undefined) throw new InvalidOptionError('baseURL', 'pass `stream` or `baseURL` (your backend: never an API key in the page)');
  const config = configOf(options as InjectResponseOptions<unknown>);
  return (input) => streamResponse({ ...(options.model !== undefined && { model: options.model }), ...options.body, input }, config);
}

function reconnectOf<I>(options: InjectResponseOptions<I>, resume: AutoResumeOptions): Reconnect {
  if (resume.reconnect) return resume.reconnect;
  if (options.baseURL === undefined) throw new InvalidOptionError('resume', 'without a `reconnect` it needs `baseURL`');
  const config = configOf(options as InjectResponseOptions<unknown>);
  return (c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config);
}
