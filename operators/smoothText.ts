import { asyncScheduler, Observable, type SchedulerLike } from 'rxjs';
import { durationMs, oneOf, positiveNumber } from '../lib/options.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import type { TextKind, TextSnapshot } from './accumulateText.js';
import { chunkerFor, type Chunking } from './internal/smooth-chunking.js';
import { Pacer, type Origin, type Track } from './internal/smooth-pacer.js';

export type { Chunking } from './internal/smooth-chunking.js';

export interface SmoothTextOptions {
  /**
   * Where text may be cut: `'word'` (default: a word with the punctuation around it and the spaces after it;
   * text without spaces, such as Chinese or Japanese, at `Intl.Segmenter` word boundaries), `'line'`,
   * `'grapheme'`, a RegExp (a segment ends where a match ends), or an `Intl.Segmenter` (its segments; a word
   * segmenter's are grouped as `'word'`). A segment never ends inside a grapheme (emoji, combining marks).
   */
  readonly chunking?: Chunking;
  /** Milliseconds between two releases of one part. Default 10. `0` releases each segment as soon as it is complete. */
  readonly delayMs?: number;
  /**
   * How far (in ms of text at `delayMs` per segment) a part may fall behind the model. Beyond it, several segments
   * go out at once, enough to catch up in about `maxLagMs`. Default 250.
   */
  readonly maxLagMs?: number;
  /** At completion, release what is left at once (`'flush'`, default) or go on pacing and complete after (`'paced'`). */
  readonly finish?: 'flush' | 'paced';
  /**
   * What a `string` stream carries: the whole text so far, as `outputText()` emits it (`'accumulated'`, default;
   * the output is the whole released text so far), or pieces to append (`'deltas'`; the output is pieces). Raw
   * deltas taken as `'accumulated'` are each a correction: they pass through unpaced.
   */
  readonly strings?: 'accumulated' | 'deltas';
  /** Where the releases are scheduled. Default `asyncScheduler`; `animationFrameScheduler` in a UI, a `TestScheduler` in tests. */
  readonly scheduler?: SchedulerLike;
}

/** The values smoothText paces. */
export type SmoothTextInput = string | TextSnapshot | ResponseStreamEvent;

// A Map, so that an event type such as "constructor" finds nothing.
const DELTA_KINDS: ReadonlyMap<unknown, TextKind> = new Map<unknown, TextKind>([
  ['response.output_text.delta', 'output_text'],
  ['response.refusal.delta', 'refusal'],
  ['response.reasoning_text.delta', 'reasoning_text'],
  ['response.reasoning_summary_text.delta', 'reasoning_summary_text'],
]);

/**
 * Releases streamed text at a steady, readable pace. Text arrives in bursts (a network chunk carries many
 * deltas, then nothing for 300 ms); this cuts it into segments (`chunking`) and releases one per `delayMs`,
 * more at once when the backlog exceeds `maxLagMs`, so the display flows and never falls far behind. The last
 * segment of the text, which may still grow, is held until more text comes or the source ends.
 *
 * Works on three kinds of stream, and gives back the same kind:
 * - `string`s: the whole text so far (`outputText()`), out as the whole released text so far; a correction
 *   (a string that does not extend the previous one) is released at once. With `strings: 'deltas'`, pieces (raw
 *   deltas need it: taken as whole texts, each would be a correction, passed on unpaced). An empty string before
 *   any text (outputText's `''` for an answer without text) goes out only at completion, when no text came.
 * - `TextSnapshot`s (`accumulateText()`): one snapshot per released piece (`delta` the piece, `text` the part's
 *   released text); a part's final snapshot comes after its text. No value is an empty piece: a snapshot or
 *   string that adds nothing releases nothing.
 * - Responses events: text deltas (`output_text`, `refusal`, `reasoning_text`, `reasoning_summary_text`) are
 *   re-cut into paced deltas (the fields of the last event whose text a piece completes, its `logprobs`
 *   once); every other event (a tool call, `.done`, the terminal event) is held until the text before it has
 *   been released, so a UI never shows a tool's effect before the words that led to it.
 *
 * On a long answer prefer the events form (`events$.pipe(smoothText(), outputText())`): the string form reads the
 * whole latest string at each release (outputText's are ropes: reading flattens them), the events form only the deltas.
 *
 * Each part (`output_index` / `content_index`, and kind) is paced on its own. At completion what is left is
 * released at once (or paced: `finish: 'paced'`); on error, everything received is released before the
 * error. Unsubscribing cancels every scheduled release.
 *
 * ```
 * source:  -a--------------|        a = 'One two three' (outputText)
 *   smoothText({ delayMs: 3 })
 * out:     -x--y-----------(z|)     x = 'One ', y = 'One two ', z = 'One two three'
 * ```
 *
 * ```ts
 * events$.pipe(outputText(), smoothText({ scheduler: animationFrameScheduler }))
 *   .subscribe((text) => (answer.textContent = text));
 * ```
 */
export function smoothText(options: SmoothTextOptions = {}): <T extends SmoothTextInput>(source: Observable<T>) => Observable<T> {
  const delay = durationMs('delayMs', options.delayMs, 10);
  const maxLagMs = positiveNumber('maxLagMs', options.maxLagMs, 250);
  const chunker = chunkerFor(options.chunking ?? 'word'); // a bad value throws here, at the call; chunkers keep no state between cuts
  const finish = oneOf('finish', options.finish, ['flush', 'paced'], 'flush');
  const strings = oneOf('strings', options.strings, ['accumulated', 'deltas'], 'accumulated');
  const deltas = strings === 'deltas';
  const scheduler = options.scheduler ?? asyncScheduler;

  return <T extends SmoothTextInput>(source: Observable<T>) =>
    new Observable<T>((subscriber) => {
      let previous = ''; // accumulated strings: the last one received
      // Accumulated strings: an empty text received before any other (outputText's '' for an answer without text)
      // goes out only if the source ends with nothing more: never an empty value before the first words.
      let blank = false;
      // Emits in the shape of the origin: each value type knows how to say "this piece of text".
      const release = (_key: string, piece: string, track: Track, done: ReadonlyArray<Origin<T>>, current: Origin<T> | undefined): void => {
        const last = done[done.length - 1];
        const template = (last ?? current)!;
        const v = template.value;
        if (typeof v === 'string') {
          // Accumulated: the released prefix of the latest string (the origins are not kept: see `next`).
          subscriber.next((deltas ? piece : previous.slice(0, track.released)) as T);
        } else if (isSnapshot(v)) {
          // The text comes from a snapshot that has all of it: the one the piece cuts into, if any.
          const from = current ?? template;
          const snap = from.value as TextSnapshot;
          const text = snap.text.slice(0, track.released - (from.end - snap.text.length));
          subscriber.next({ ...snap, delta: piece, text, done: false } as unknown as T);
        } else {
          const out: Record<string, unknown> = Object.assign({}, v as object, { delta: piece });
          if ('logprobs' in out) out['logprobs'] = done.flatMap((o) => logprobsOf(o.value));
          subscriber.next(out as T);
        }
      };
      let pending: string | undefined; // accumulated strings: the latest, not read yet
      // Accumulated strings: takes in what `v` adds (or its correction).
      const ingest = (v: string): void => {
        if (extends_(v, previous)) {
          const before = previous;
          previous = v; // what the releases slice from
          // The origin is not the string itself: holding every intermediate text would cost O(n²) memory.
          if (v.length > before.length) {
            blank = false;
            pacer.text('', v.slice(before.length), '' as T);
          } else if (v === '' && before === '') blank = true;
        } else {
          // A correction: what is pending goes out, then the corrected text, and pacing goes on from it.
          blank = false;
          pacer.flush();
          const t = pacer.track('');
          t.received = t.released = v.length;
          previous = v;
          subscriber.next(v as T);
        }
      };
      const pull = (): void => {
        if (pending === undefined) return;
        const v = pending;
        pending = undefined;
        ingest(v);
      };
      const pacer = new Pacer<T, T>({
        chunker,
        delay,
        maxLagMs,
        scheduler,
        release,
        emit: (v) => subscriber.next(v),
        drained: () => subscriber.complete(),
        pull,
        fail: (err) => fail(err),
      });
      // Your code runs in here (a segmenter, a scheduler, a value's getters): what it throws ends the stream
      // with that error, never as an uncaught exception from a scheduled release.
      const fail = (err: unknown): void => {
        pacer.dispose();
        subscriber.error(err);
      };

      const receive = (v: T): void => {
        if (typeof v === 'string') {
          if (deltas) pacer.text('', v, v);
          else if (pacer.waiting()) pending = v; // read at the next release: once per release, not once per value
          else ingest(v);
        } else if (isSnapshot(v)) {
          if (v.done) pacer.hold(v);
          else pacer.text(`${v.kind}:${v.outputIndex}:${v.contentIndex}`, v.delta, v);
        } else {
          const e = v as Record<string, unknown>;
          const kind = DELTA_KINDS.get(e['type']);
          const d = e['delta'];
          if (kind !== undefined && typeof d === 'string') {
            const index = kind === 'reasoning_summary_text' ? e['summary_index'] : e['content_index'];
            pacer.text(`${kind}:${String(e['output_index'])}:${String(index)}`, d, v);
          } else {
            pacer.hold(v);
          }
        }
      };

      const sub = source.subscribe({
        next(v) {
          try {
            receive(v);
          } catch (err) {
            fail(err);
          }
        },
        error(err: unknown) {
          try {
            pull();
            pacer.flush();
          } catch (e) {
            fail(e);
            return;
          }
          subscriber.error(err);
        },
        complete() {
          try {
            pull();
            if (blank && previous === '') subscriber.next('' as T); // the source said there is no text at all
            pacer.finish(finish);
          } catch (err) {
            fail(err);
          }
        },
      });
      return () => {
        sub.unsubscribe();
        pacer.dispose();
      };
    });
}

/**
 * Whether `v` extends `prev`, judged on the lengths and the last characters of `prev` only: comparing whole
 * prefixes at each value would be quadratic. A correction further back still shows, since what goes out is
 * always a prefix of the latest string.
 */
function extends_(v: string, prev: string): boolean {
  if (v.length < prev.length) return false;
  const from = Math.max(0, prev.length - 16);
  for (let i = from; i < prev.length; i++) if (v.charCodeAt(i) !== prev.charCodeAt(i)) return false;
  return true;
}

function isSnapshot(v: SmoothTextInput): v is TextSnapshot {
  return typeof v === 'object' && v !== null && 'kind' in v && 'done' in v && 'text' in v && !('type' in v);
}

function logprobsOf(v: unknown): unknown[] {
  const l = (v as { logprobs?: unknown }).logprobs;
  return Array.isArray(l) ? l : [];
}
