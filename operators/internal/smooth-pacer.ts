// The pacing engine behind smoothText (not exported from the package): text parts cut into segments and
// released one (or, when behind, several) per `delay`, each part on its own clock, and other values held in
// order behind the text that came before them.
import type { SchedulerLike, Subscription } from 'rxjs';
import type { Chunker } from './smooth-chunking.js';
import { graphemeStarts } from './smooth-chunking.js';

/** A trailing segment longer than this is cut before its last grapheme, so that re-cutting it stays linear. */
const MAX_HOLD = 4096;

/** What came in with some text: the value and where its text ends in the part. */
export interface Origin<O> {
  readonly end: number;
  readonly value: O;
}

/** A part's counters, kept across stages (the same part may stream before and after an annotation). */
export interface Track {
  /** Characters received / released so far. */
  received: number;
  released: number;
  /** When a piece was last released (scheduler time), or -Infinity. */
  last: number;
}

/** One part's text within a stage. */
class Part<O> {
  readonly segments: string[] = [];
  head = 0;
  tail = '';
  readonly origins: Array<Origin<O>> = [];
  originHead = 0;
  timer: Subscription | undefined = undefined;
  constructor(
    readonly key: string,
    readonly track: Track,
  ) {}

  get queued(): number {
    return this.segments.length - this.head;
  }
}

/** Text that streamed between two held values, and the values that close it. */
class Stage<O, T> {
  readonly parts = new Map<string, Part<O>>();
  readonly held: T[] = [];
  /** No more text can join it (a value is held after it, or the source ended): its trailing segments are complete. */
  closed = false;
}

export interface PacerOptions<O, T> {
  readonly chunker: Chunker;
  readonly delay: number;
  readonly maxLagMs: number;
  readonly scheduler: SchedulerLike;
  /** Emits released text: `piece` of part `key`; `done` are the origins whose text it completes, `current` the one it cuts into. */
  readonly release: (key: string, piece: string, track: Track, done: ReadonlyArray<Origin<O>>, current: Origin<O> | undefined) => void;
  /** Emits a held value. */
  readonly emit: (value: T) => void;
  /** Called once everything is out after `finish('paced')`. */
  readonly drained: () => void;
  /** Called before each scheduled release and at `finish`: text held back while a release was pending comes in now. */
  readonly pull?: () => void;
  /** A scheduled release threw (a segmenter's or scheduler's error): the stream ends with it. */
  readonly fail?: (err: unknown) => void;
}

export class Pacer<O, T> {
  private readonly stages: Array<Stage<O, T>> = [];
  private stageHead = 0;
  private readonly tracks = new Map<string, Track>();
  private readonly timers = new Set<Subscription>();
  private finishing = false;
  private disposed = false;

  constructor(private readonly o: PacerOptions<O, T>) {}

  /** A part's counters (created on first use). */
  track(key: string): Track {
    let t = this.tracks.get(key);
    if (t === undefined) {
      t = { received: 0, released: 0, last: -Infinity };
      this.tracks.set(key, t);
    }
    return t;
  }

  /** Text for part `key`, from `origin`. */
  text(key: string, delta: string, origin: O): void {
    let stage = this.stages[this.stages.length - 1];
    if (stage === undefined || this.stages.length === this.stageHead || stage.closed) {
      stage = new Stage<O, T>();
      this.stages.push(stage);
    }
    let part = stage.parts.get(key);
    if (part === undefined) {
      part = new Part<O>(key, this.track(key));
      stage.parts.set(key, part);
    }
    part.track.received += delta.length;
    part.origins.push({ end: part.track.received, value: origin });
    if (delta === '') return;
    this.append(part, part.tail + delta);
    if (stage === this.stages[this.stageHead]) this.start(part);
  }

  /** A value that must come out after all the text received before it. */
  hold(value: T): void {
    const stage = this.stages[this.stages.length - 1];
    if (stage === undefined || this.stages.length === this.stageHead) {
      this.o.emit(value);
      return;
    }
    // The text before a held value can no longer grow: its trailing segments become complete.
    this.close(stage);
    stage.held.push(value);
    this.pump();
  }

  /**
   * The source completed: trailing segments are complete; `'flush'` releases everything now, `'paced'` goes
   * on pacing and calls `drained` when done.
   */
  finish(mode: 'flush' | 'paced'): void {
    this.o.pull?.();
    this.closeLast();
    this.finishing = true;
    if (mode === 'flush') this.flush();
    else this.pump();
  }

  /** Everything received released now, in order (before an error, or at completion). */
  flush(): void {
    this.closeLast();
    for (; this.stageHead < this.stages.length; this.stageHead++) {
      const stage = this.stages[this.stageHead]!;
      for (const part of stage.parts.values()) {
        this.cancel(part);
        if (part.queued > 0) this.releaseSegments(part, part.queued);
      }
      for (const v of stage.held) this.o.emit(v);
      this.stages[this.stageHead] = undefined as unknown as Stage<O, T>;
    }
    this.compact();
    if (this.finishing) this.o.drained();
  }

  /** Whether a release is scheduled (text given now would wait for it anyway). */
  waiting(): boolean {
    return this.timers.size > 0;
  }

  /** Cancels every scheduled release. */
  dispose(): void {
    this.disposed = true;
    for (const t of this.timers) t.unsubscribe();
    this.timers.clear();
  }

  private closeLast(): void {
    const stage = this.stages[this.stages.length - 1];
    if (stage !== undefined && this.stages.length > this.stageHead) this.close(stage);
  }

  private close(stage: Stage<O, T>): void {
    if (stage.closed) return;
    stage.closed = true;
    for (const part of stage.parts.values()) {
      if (part.tail !== '') {
        part.segments.push(part.tail);
        part.tail = '';
      }
    }
  }

  /** Cuts `text` (the old trailing segment and the new text) into complete segments and a new trailing one. */
  private append(part: Part<O>, text: string): void {
    // A high surrogate at the end is half a character: what it becomes (an emoji modifier joins the grapheme
    // before it) is not known yet, so the text is cut as if it were not there.
    const last = text.charCodeAt(text.length - 1);
    const body = last >= 0xd800 && last <= 0xdbff ? text.slice(0, -1) : text;
    let from = 0;
    for (const end of this.o.chunker.cut(body)) {
      if (end <= from || end > body.length) continue;
      part.segments.push(text.slice(from, end));
      from = end;
    }
    let tail = from === 0 ? text : text.slice(from);
    if (tail.length > MAX_HOLD) {
      const starts = graphemeStarts(body.slice(from));
      const cut = starts[starts.length - 1] ?? 0;
      if (cut > 0) {
        part.segments.push(tail.slice(0, cut));
        tail = tail.slice(cut);
      }
    }
    part.tail = tail;
  }

  /** Releases now or schedules the next release of a part of the head stage. */
  private start(part: Part<O>): void {
    if (part.timer !== undefined || part.queued === 0 || this.disposed) return;
    const wait = this.o.delay <= 0 ? 0 : part.track.last + this.o.delay - this.o.scheduler.now();
    if (wait <= 0) {
      this.tick(part);
      return;
    }
    this.schedule(part, wait);
  }

  private schedule(part: Part<O>, wait: number): void {
    if (this.disposed) return; // the subscriber left during the release that asks for this one
    const sub = this.o.scheduler.schedule(() => {
      try {
        this.o.pull?.(); // while the timer is still set, so that new text does not start another release
        this.timers.delete(sub);
        part.timer = undefined;
        this.tick(part);
      } catch (err) {
        // Thrown from here it would escape from the scheduler as an uncaught exception.
        if (this.o.fail === undefined) throw err;
        this.o.fail(err);
      }
    }, wait);
    // A synchronous scheduler may have run it already.
    if (!sub.closed) {
      part.timer = sub;
      this.timers.add(sub);
    }
  }

  private cancel(part: Part<O>): void {
    if (part.timer === undefined) return;
    part.timer.unsubscribe();
    this.timers.delete(part.timer);
    part.timer = undefined;
  }

  /** One release: one segment, or more when the part's backlog is over `maxLagMs` (so it catches up within about `maxLagMs`). */
  private tick(part: Part<O>): void {
    if (part.queued === 0) {
      this.pump(); // flushed meanwhile (a correction pulled in)
      return;
    }
    const { delay, maxLagMs } = this.o;
    const n = delay <= 0 ? part.queued : Math.max(1, Math.ceil((part.queued * delay) / maxLagMs));
    this.releaseSegments(part, n);
    part.track.last = this.o.scheduler.now();
    if (part.queued > 0) this.schedule(part, delay);
    else this.pump();
  }

  private releaseSegments(part: Part<O>, n: number): void {
    const count = Math.min(n, part.queued);
    const piece = count === 1 ? part.segments[part.head]! : part.segments.slice(part.head, part.head + count).join('');
    part.head += count;
    if (part.head > 64 && part.head * 2 > part.segments.length) {
      part.segments.splice(0, part.head);
      part.head = 0;
    }
    const t = part.track;
    t.released += piece.length;
    let k = part.originHead;
    while (k < part.origins.length && part.origins[k]!.end <= t.released) k++;
    const done = part.origins.slice(part.originHead, k);
    part.originHead = k;
    if (k > 64 && k * 2 > part.origins.length) {
      part.origins.splice(0, k);
      part.originHead = 0;
    }
    this.o.release(part.key, piece, t, done, part.origins[part.originHead]);
  }

  /** Emits the held values of drained stages and starts the next stage's parts. */
  private pump(): void {
    while (this.stageHead < this.stages.length) {
      const stage = this.stages[this.stageHead]!;
      let busy = false;
      for (const part of stage.parts.values()) {
        if (part.queued > 0) {
          busy = true;
          this.start(part);
        }
      }
      if (busy || !stage.closed) return;
      // Drained and closed: its held values go out, and the next stage becomes the head.
      this.stages[this.stageHead++] = undefined as unknown as Stage<O, T>;
      for (const v of stage.held) this.o.emit(v);
    }
    this.compact();
    if (this.finishing) this.o.drained();
  }

  private compact(): void {
    if (this.stageHead === this.stages.length) {
      this.stages.length = 0;
      this.stageHead = 0;
    }
  }
}
