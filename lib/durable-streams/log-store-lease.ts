import { EventLogError } from '../errors.js';
import type { EventLog, LogScope } from '../log/types.js';
import { BACKOFF_CAP_MS, type LogStoreSettings } from './log-store-options.js';

// An appender keeps a data stream's lease a little after a batch while more appends for it keep coming: while this
// process holds a live lease nobody else can have appended (the log fences any append with an older token), so its
// cached writer state is the log's and the next batch costs one log append instead of acquire, state, append,
// release. The hold is bounded: released once idle for `lingerMs`, and after `maxHoldMs` in one go released and not
// taken again for `GAP_MS`, longer than a waiter's longest backoff sleep (withLease), so another process that waits
// for the lease gets it.

/** How long a process that held a lease for `maxHoldMs` leaves it free: a waiter's longest sleep (1.5 × the cap), plus margin. */
export const GAP_MS = 2.5 * BACKOFF_CAP_MS;

interface Held {
  readonly scope: LogScope;
  readonly token: number;
  /** `Date.now()` when the acquire was sent: the lease lasts `leaseMs` from no earlier than this. */
  readonly since: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export class HeldLeases {
  private readonly held = new Map<string, Held>();
  private readonly lingerMs: number;
  private readonly maxHoldMs: number;

  constructor(
    private readonly log: EventLog,
    settings: LogStoreSettings,
  ) {
    // Well inside the lease: a held lease is used only while at least 3/4 of it is left (no renew needed).
    this.maxHoldMs = Math.min(1000, settings.leaseMs / 4);
    this.lingerMs = Math.min(100, settings.leaseMs / 8);
  }

  /**
   * The token of a lease on `key` this process still holds well inside its term, taken out of the idle linger;
   * `undefined` when none (one held `maxHoldMs` is released first, and the lease left free for `GAP_MS`).
   */
  async take(key: string): Promise<{ readonly token: number; readonly since: number } | undefined> {
    const h = this.held.get(key);
    if (h === undefined) return undefined;
    if (h.timer !== undefined) clearTimeout(h.timer);
    h.timer = undefined;
    if (Date.now() - h.since < this.maxHoldMs) return h;
    await this.drop(key);
    await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    return undefined;
  }

  /** Keeps the lease `token` on `key` (acquired at `since`) for the next batch, released after `lingerMs` idle. */
  keep(key: string, scope: LogScope, token: number, since: number): void {
    let h = this.held.get(key);
    if (h?.token !== token) {
      if (h?.timer !== undefined) clearTimeout(h.timer);
      h = { scope, token, since, timer: undefined };
      this.held.set(key, h);
    } else if (h.timer !== undefined) clearTimeout(h.timer);
    h.timer = setTimeout(() => void this.drop(key), this.lingerMs);
    h.timer.unref?.();
  }

  /** Releases the lease held on `key` (if any); never fails (a lapsed or stale token is the log's to ignore). */
  async drop(key: string): Promise<void> {
    const h = this.held.get(key);
    if (h === undefined) return;
    this.held.delete(key);
    if (h.timer !== undefined) clearTimeout(h.timer);
    await Promise.resolve()
      .then(() => this.log.release(h.scope, h.token))
      .catch(() => undefined);
  }
}

export const isFenced = (e: unknown): boolean => e instanceof EventLogError && e.reason === 'fenced';
