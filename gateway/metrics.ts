// What `GET /metrics` reports: streams in flight, events per second, and how far the event log lags behind
// (appends in flight, the age of the oldest, their latency).
import { followOf } from '../lib/log/follow.js';
import { forwardPacked } from '../lib/log/packed.js';
import { forwardSync } from '../lib/log/sync-append.js';
import type { EventLog } from '../lib/log/types.js';

export interface GatewayMetricsSnapshot {
  /** Client streams (SSE responses) open now, and upstream streams being recorded by this instance. */
  readonly streams: { readonly clients: number; readonly producers: number };
  /** Events written to clients: in all, and per second over the last 10 s. */
  readonly events: { readonly total: number; readonly perSecond: number };
  /** The log: appends waiting for their acknowledgement, the oldest one's age, the mean and last append latency (ms), failed calls. */
  readonly log: {
    readonly appendsInFlight: number;
    readonly lagMs: number;
    readonly appendMsAvg: number;
    readonly appendMsLast: number;
    readonly errors: number;
  };
  /** Requests answered with an error of the gateway's own (4xx/5xx), by status. */
  readonly errors: Readonly<Record<string, number>>;
  readonly uptimeSeconds: number;
}

const WINDOW = 10;

export class GatewayMetrics {
  clients = 0;
  private eventsTotal = 0;
  /** Events of the last WINDOW whole seconds, and of the second under way. */
  private readonly buckets = new Array<number>(WINDOW).fill(0);
  private bucket = 0;
  private current = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly inFlight = new Map<number, number>();
  private nextAppend = 0;
  private appendAvg = 0;
  private appendLast = 0;
  private logErrors = 0;
  private readonly errorCounts: Record<string, number> = {};
  private readonly startedAt = Date.now();

  constructor(private readonly producers: () => number) {
    this.timer = setInterval(() => this.rotate(), 1000);
    this.timer.unref();
  }

  /** One event written: a counter, no clock read (the buckets turn once a second on their own timer). */
  event(): void {
    this.eventsTotal++;
    this.current++;
  }

  error(status: number): void {
    this.errorCounts[String(status)] = (this.errorCounts[String(status)] ?? 0) + 1;
  }

  private rotate(): void {
    this.buckets[this.bucket] = this.current;
    this.current = 0;
    this.bucket = (this.bucket + 1) % WINDOW;
  }

  /** Stops the bucket timer. */
  stop(): void {
    clearInterval(this.timer);
  }

  /** The log, with its appends timed; with `follow` when `log` has it (else every reader would poll it). */
  measure(log: EventLog): EventLog {
    // A log of the user's that throws instead of rejecting is counted (and settled) like one that rejects.
    const called = <T>(call: () => Promise<T>): Promise<T> => {
      try {
        const p = call();
        if (typeof (p as Partial<Promise<T>> | undefined)?.catch !== 'function') throw new TypeError('the event log answered with something that is not a promise');
        return p;
      } catch (e) {
        return Promise.reject(e);
      }
    };
    const counted = (e: unknown): never => {
      this.logErrors++;
      throw e;
    };
    const failed = <T>(call: () => Promise<T>): Promise<T> => called(call).then(undefined, counted);
    // An append timed and counted, whether the writer sends its events as objects or packed (lib/log/packed.ts).
    const timed = (call: () => Promise<void>): Promise<void> => {
      const id = this.nextAppend++;
      const at = Date.now();
      this.inFlight.set(id, at);
      const settle = (): void => {
        this.inFlight.delete(id);
        this.appendTook(Date.now() - at);
      };
      // One reaction per append (an append per event when events come one at a time), not a catch and a finally.
      return called(call).then(
        () => settle(),
        (e: unknown) => {
          settle();
          return counted(e);
        },
      );
    };
    const measured: EventLog = {
      acquire: (s, ms) => failed(() => log.acquire(s, ms)),
      renew: (s, t, ms) => failed(() => log.renew(s, t, ms)),
      release: (s, t) => log.release(s, t),
      append: (s, t, events) => timed(() => log.append(s, t, events)),
      read: (s, after, limit) => failed(() => log.read(s, after, limit)),
      wait: (s, after, ms, signal) => log.wait(s, after, ms, signal),
      state: (s) => failed(() => log.state(s)),
      cancel: (s) => failed(() => log.cancel(s)),
      close: () => log.close(),
      ...followOf(log, (h) => ({
        ...h,
        error: (e) => {
          this.logErrors++;
          h.error(e);
        },
      })),
    };
    // A log that takes its writers' events packed (redisEventLog) keeps taking them through this wrapper.
    forwardPacked(measured, log, (p) => ({ encode: p.encode, append: (s, t, events) => timed(() => p.append(s, t, events)) }));
    // One that acknowledges at once (memoryEventLog) too: an append done when it returns took no time and was never in flight.
    return forwardSync(measured, log, (append) => (s, t, events) => {
      const answer = append(s, t, events);
      if (answer !== undefined) return timed(() => answer);
      this.appendTook(0);
      return undefined;
    });
  }

  /** An append settled after `ms`: the last and the moving average of the appends' latency. */
  private appendTook(ms: number): void {
    this.appendLast = ms;
    this.appendAvg = this.appendAvg === 0 ? ms : this.appendAvg * 0.95 + ms * 0.05;
  }

  snapshot(): GatewayMetricsSnapshot {
    let oldest: number | undefined;
    for (const at of this.inFlight.values()) if (oldest === undefined || at < oldest) oldest = at;
    return {
      streams: { clients: this.clients, producers: this.producers() },
      events: { total: this.eventsTotal, perSecond: this.buckets.reduce((a, b) => a + b, 0) / WINDOW },
      log: {
        appendsInFlight: this.inFlight.size,
        lagMs: oldest === undefined ? 0 : Date.now() - oldest,
        appendMsAvg: Math.round(this.appendAvg * 100) / 100,
        appendMsLast: this.appendLast,
        errors: this.logErrors,
      },
      errors: { ...this.errorCounts },
      uptimeSeconds: Math.round((Date.now() - this.startedAt) / 1000),
    };
  }
}
