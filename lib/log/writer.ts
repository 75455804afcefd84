import { asapScheduler, asyncScheduler, Subscription, type SchedulerLike } from 'rxjs';
import { EventLogError } from '../errors.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import { durationMs, nonNegativeInt, positiveDurationMs, positiveInt } from '../options.js';
import type { EventLog, Lease, LogScope } from './types.js';
import { DEFAULT_LEASE_MS } from './defaults.js';
import { packedAppendOf, type PackedAppend } from './packed.js';
import { renewEvery } from './renewal-clock.js';
import { isTerminalEvent } from './scope.js';
import { syncAppendOf, type SyncAppend } from './sync-append.js';
import { atBurstEnd } from '../burst.js';

/** How a leased writer batches, bounds and keeps its lease: shared by `persistTo` and `fromEventLog`'s takeover. */
export interface LogWriterOptions {
  /** Lease length in ms; renewed every third of it. Default 10 000. */
  readonly leaseMs?: number;
  /**
   * How long a lone event waits for others before it is sent, in ms (0: sent at once). Default: until the end
   * of the current turn, so the events pushed together (one network chunk, every stream a timer emits for)
   * go together, with no timer per stream. Either way, events pushed while an append is in flight wait for
   * it and go together when it returns.
   */
  readonly maxBatchDelayMs?: number;
  /** Most events one append carries. Default 500. */
  readonly maxBatchSize?: number;
  /** Most events queued (not yet sent) before the writer fails with `EventLogError('limit')`. Default 10 000. */
  readonly maxPending?: number;
  /** Where the batch delay and lease renewals are timed. Default `asyncScheduler` (the end of a turn: `asapScheduler`). */
  readonly scheduler?: SchedulerLike;
}

/** @internal Throws the `InvalidOptionError` of a writer option that cannot work, before any lease is taken. */
export function checkLogWriterOptions(options: LogWriterOptions): void {
  positiveDurationMs('leaseMs', options.leaseMs);
  durationMs('maxBatchDelayMs', options.maxBatchDelayMs);
  positiveInt('maxBatchSize', options.maxBatchSize);
  nonNegativeInt('maxPending', options.maxPending);
}

/** What the log's promises are used as: `then(onFulfilled, onRejected)` only, so that a fake log may settle synchronously. */
type Thenable<T> = { then(ok: (v: T) => void, fail: (e: unknown) => void): unknown };

/**
 * Calls one of the log's methods: a synchronous throw, or an answer that is not a promise (an EventLog of the
 * user's that breaks its contract), fails like a rejection instead of escaping from a timer or an emission.
 */
function call<T>(f: () => Promise<T>, ok: (v: T) => void, fail: (e: unknown) => void): void {
  let p: Thenable<T>;
  try {
    p = f();
    if (typeof (p as Partial<Thenable<T>> | null | undefined)?.then !== 'function') throw new TypeError('the event log answered with something that is not a promise');
  } catch (e) {
    fail(e);
    return;
  }
  p.then(ok, fail);
}

/**
 * The append of `batch`, as a function of its own: the callbacks of its answer are made in another scope and do
 * not keep the batch's events alive through the round trip (closures made in one call share what they capture).
 */
const appendOf =
  (log: EventLog, scope: LogScope, token: number, batch: ResponseStreamEvent[]): (() => Promise<void>) =>
  () =>
    log.append(scope, token, batch);

/** The same for a log that takes its events encoded (lib/log/packed.ts). */
const packedAppendCall =
  (p: PackedAppend, scope: LogScope, token: number, marks: number[], jsons: string[]): (() => Promise<void>) =>
  () =>
    p.append(scope, token, { marks, jsons });

/** Any failure of the store as the typed error: `EventLogError` as is, anything else as `'unavailable'`. */
export function asEventLogError(e: unknown, responseId: string): EventLogError {
  if (e instanceof EventLogError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new EventLogError('unavailable', message, responseId);
}

/** Whether an event can be placed in a log: a `sequence_number` that is an integer ≥ 0 (what the stores key it by). */
export const isPlaceable = (e: ResponseStreamEvent): boolean => Number.isSafeInteger(e.sequence_number) && (e.sequence_number as number) >= 0;

/** The error for an event no log can place, naming its type and its position among the events pushed (0 first). */
export function unplaceable(e: ResponseStreamEvent, position: number, responseId: string): EventLogError {
  const type = typeof e.type === 'string' ? JSON.stringify(e.type.slice(0, 64)) : 'without a type';
  const n = e.sequence_number;
  const seq = n === undefined ? 'no sequence_number' : `sequence_number ${typeof n === 'number' ? String(n) : `of type ${typeof n}`}`;
  return new EventLogError('invalid', `event ${position} of the stream (type ${type}) has ${seq} where an integer ≥ 0 was expected: it cannot be placed in the log`, responseId);
}

/** The empty queue of every writer (frozen: a push to it would throw rather than share events between writers). */
const NONE = Object.freeze([]) as unknown as never[];

/** `delayed` while the send waits for the end of a burst (lib/burst.ts): nothing to unsubscribe. */
const BURST: Subscription = new Subscription();
BURST.closed = true;

/**
 * Writes one stream's events to a log under a lease: acquires it, renews it every third of `leaseMs`,
 * appends in batches (while one append is in flight the next events queue and go together; a lone event
 * goes at the end of the turn, or after `maxBatchDelayMs` when set), and releases it at the end. Every failure goes once to `onError` as an
 * `EventLogError`, after which the writer is stopped; so does an event pushed without a `sequence_number` that is an
 * integer ≥ 0 (`'invalid'`, naming its type and position): the logs cannot place it, and skipping it would leave
 * a gap nobody is told about. The log's promises are only ever `then`ed (never
 * awaited), so a test's fake log may settle them on the TestScheduler's clock.
 */
export class LogWriter {
  private readonly leaseMs: number;
  private readonly maxBatchDelayMs: number | undefined;
  private readonly maxBatchSize: number;
  private readonly maxPending: number;
  private readonly scheduler: SchedulerLike;
  /**
   * Where "the end of the turn" is when `maxBatchDelayMs` is not set: `asapScheduler` by default, an rxjs scheduler
   * (not a bare microtask) so that `TestScheduler.run` times it as the marble specs pin it.
   */
  private readonly turn: SchedulerLike;
  // The queues are handed to the log whole when they fit in a batch, and a new one begun with the next event (an
  // array literal): emptied by `splice` and pushed to again, a queue of one event grew its store on every push. An
  // empty queue is the shared frozen NONE (never pushed to: the next event replaces it), not a new array per send
  // that each writer would keep alive across the next scavenge.
  private queue: ResponseStreamEvent[] = NONE;
  /** A log that takes its events encoded: they queue as their JSON (`jsons`) and marks, not in `queue`. */
  private readonly packed: PackedAppend | undefined;
  private marks: number[] = NONE;
  private jsons: string[] = NONE;
  /** A log that acknowledges an append at once (lib/log/sync-append.ts), when it is not one that takes packed events. */
  private readonly sync: SyncAppend | undefined;
  private lease: Lease | undefined;
  private inFlight = false;
  private delayed: Subscription | undefined;
  /** Leaves the renewal clock. */
  private renewal: (() => void) | undefined;
  private onIdle: (() => void) | undefined;
  private stopped = false;
  private readonly sendLater = (): void => {
    if (this.delayed !== BURST) return;
    this.delayed = undefined;
    this.send();
  };
  /** Events pushed so far: the position an unplaceable one is named by. */
  private pushed = 0;

  constructor(
    private readonly log: EventLog,
    private readonly scope: LogScope,
    options: LogWriterOptions,
    private readonly onError: (e: EventLogError) => void,
  ) {
    this.leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.maxBatchDelayMs = options.maxBatchDelayMs;
    this.maxBatchSize = Math.max(1, options.maxBatchSize ?? 500);
    this.maxPending = options.maxPending ?? 10_000;
    this.scheduler = options.scheduler ?? asyncScheduler;
    // The microtask queue: every writer's send of one turn in one flush (and so, on Redis, in one script call).
    this.turn = options.scheduler ?? asapScheduler;
    this.packed = packedAppendOf(log);
    this.sync = this.packed === undefined ? syncAppendOf(log) : undefined;
  }

  /** How many events wait to be sent. */
  private get waiting(): number {
    return this.packed === undefined ? this.queue.length : this.jsons.length;
  }

  /** Claims the lease; events pushed before it is granted wait in the queue. */
  acquire(onAcquired?: () => void): void {
    call(
      () => this.log.acquire(this.scope, this.leaseMs),
      (lease) => {
        if (this.stopped) {
          call(() => this.log.release(this.scope, lease.token), () => undefined, () => undefined);
          return;
        }
        this.lease = lease;
        this.scheduleRenewal();
        onAcquired?.();
        this.pump();
        this.checkIdle();
      },
      (e) => this.fail(e),
    );
  }

  /** Queues an event for the next append. */
  push(e: ResponseStreamEvent): void {
    if (this.stopped) return;
    const position = this.pushed++;
    if (!isPlaceable(e)) {
      this.fail(unplaceable(e, position, this.scope.responseId));
      return;
    }
    if (this.packed === undefined) {
      if (this.queue.length === 0) this.queue = [e];
      else this.queue.push(e);
    } else {
      let json: string;
      try {
        json = this.packed.encode(e);
      } catch (err) {
        this.fail(err);
        return;
      }
      const seq = e.sequence_number as number;
      const mark = isTerminalEvent(e) ? -1 - seq : seq;
      if (this.jsons.length === 0) {
        this.marks = [mark];
        this.jsons = [json];
      } else {
        this.marks.push(mark);
        this.jsons.push(json);
      }
    }
    if (this.waiting > this.maxPending) {
      this.fail(new EventLogError('limit', `more than ${this.maxPending} events wait for the log (maxPending)`, this.scope.responseId));
      return;
    }
    this.pump();
  }

  /** Calls `done` once every pushed event is acknowledged, then releases the lease (without waiting for it). */
  finish(done: () => void): void {
    if (this.stopped) return;
    this.onIdle = () => {
      this.stop(true);
      done();
    };
    this.delayed?.unsubscribe();
    this.delayed = undefined;
    this.checkIdle();
    if (!this.stopped) this.send();
  }

  /** Stops: clears the timers, drops the queue and, when `release`, gives the lease up. Idempotent. */
  stop(release: boolean): void {
    if (this.stopped) return;
    this.stopped = true;
    this.delayed?.unsubscribe();
    this.renewal?.();
    this.queue = NONE;
    this.marks = NONE;
    this.jsons = NONE;
    const lease = this.lease;
    if (release && lease) call(() => this.log.release(this.scope, lease.token), () => undefined, () => undefined);
  }

  private fail(e: unknown): void {
    if (this.stopped) return;
    this.stop(true);
    this.onError(asEventLogError(e, this.scope.responseId));
  }

  private pump(): void {
    if (this.stopped || !this.lease || this.inFlight || this.waiting === 0) return;
    if (this.onIdle) return this.send(); // finishing: no reason to wait
    if (this.delayed) return;
    if (this.maxBatchDelayMs !== undefined && this.maxBatchDelayMs <= 0) {
      // At once to a log that acknowledges at once: at the end of the burst, with the events after this one in it (lib/burst.ts).
      if (this.sync !== undefined && atBurstEnd(this.sendLater)) {
        this.delayed = BURST;
        return;
      }
      return this.send();
    }
    const flush = (): void => {
      this.delayed = undefined;
      this.send();
    };
    this.delayed = this.maxBatchDelayMs === undefined ? this.turn.schedule(flush) : this.scheduler.schedule(flush, this.maxBatchDelayMs);
  }

  private send(): void {
    if (this.stopped || !this.lease || this.inFlight || this.waiting === 0) return;
    this.inFlight = true;
    const p = this.packed;
    if (this.sync !== undefined) return this.sendSync(this.sync, this.lease.token);
    call(
      p === undefined
        ? appendOf(this.log, this.scope, this.lease.token, this.takeEvents())
        : this.takePacked(p, this.lease.token),
      () => {
        this.inFlight = false;
        if (this.stopped) return;
        // Events that queued meanwhile go at once: they have waited one round trip already.
        if (this.waiting > 0) this.send();
        else this.checkIdle();
      },
      (e) => {
        this.inFlight = false;
        this.fail(e);
      },
    );
  }

  /** The next batch of `queue`: all of it when it fits (a new queue begins), else its first `maxBatchSize`. */
  private takeEvents(): ResponseStreamEvent[] {
    const q = this.queue;
    if (q.length > this.maxBatchSize) return q.splice(0, this.maxBatchSize);
    this.queue = NONE;
    return q;
  }

  /** As `takeEvents`, for a log that takes its events packed: the append of their marks and their JSON. */
  private takePacked(p: PackedAppend, token: number): () => Promise<void> {
    const marks = this.marks;
    const jsons = this.jsons;
    const max = this.maxBatchSize;
    if (jsons.length > max) return packedAppendCall(p, this.scope, token, marks.splice(0, max), jsons.splice(0, max));
    this.marks = NONE;
    this.jsons = NONE;
    return packedAppendCall(p, this.scope, token, marks, jsons);
  }

  /** `send` to a log that acknowledges at once: no promise unless the append failed (then as a rejection). */
  private sendSync(append: SyncAppend, token: number): void {
    let answer: Promise<void> | undefined;
    try {
      answer = append(this.scope, token, this.takeEvents());
    } catch (e) {
      answer = Promise.reject(e);
    }
    if (answer !== undefined) {
      answer.then(
        () => this.acknowledged(),
        (e: unknown) => {
          this.inFlight = false;
          this.fail(e);
        },
      );
      return;
    }
    this.acknowledged();
  }

  private acknowledged(): void {
    this.inFlight = false;
    if (this.stopped) return;
    // Events that queued meanwhile go at once: they have waited one round trip already.
    if (this.waiting > 0) this.send();
    else this.checkIdle();
  }

  private checkIdle(): void {
    if (this.onIdle && this.lease && !this.inFlight && this.waiting === 0) {
      const idle = this.onIdle;
      this.onIdle = undefined;
      idle();
    }
  }

  /** Renews the lease every third of `leaseMs` from now on, until stopped. */
  private scheduleRenewal(): void {
    // On the scheduler (not a bare Node timer), so that TestScheduler.run times the renewals too; on a clock shared
    // with the other writers due at the same instant (lib/log/renewal-clock.ts), so that a stream keeps no timer.
    this.renewal = renewEvery(this.scheduler, Math.max(1, Math.floor(this.leaseMs / 3)), this);
  }

  /** A renewal still unanswered: the next one waits for it (its turn is skipped). */
  private renewing = false;

  /** @internal Called by the renewal clock. */
  renew(): void {
    const lease = this.lease;
    if (this.stopped || !lease || this.renewing) return;
    this.renewing = true;
    call(
      () => this.log.renew(this.scope, lease.token, this.leaseMs),
      (renewed) => {
        this.renewing = false;
        if (!this.stopped) this.lease = renewed;
      },
      (e) => {
        this.renewing = false;
        this.fail(e);
      },
    );
  }
}
