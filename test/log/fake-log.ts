// An EventLog for marble tests: every call settles on the TestScheduler's clock (`asyncScheduler` inside
// `run`), through a synchronous thenable rather than a Promise, so that virtual time drives the round trips.
// It records what was called, when, and can be told to fail.
import { asyncScheduler } from 'rxjs';
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import type { EventLog, Lease } from '../../lib/log/types';

export interface FakeLogOptions {
  /** Frames an append takes to be acknowledged. Default 3. */
  readonly appendDelay?: number;
  /** Frames acquire / renew / release take. Default 0 (the same frame, after the current action). */
  readonly leaseDelay?: number;
  /** Makes the n-th append (1-based) fail with this error. */
  readonly failAppend?: { readonly call: number; readonly error: unknown };
  /** Makes acquire fail with this error. */
  readonly failAcquire?: unknown;
}

export interface FakeLog {
  readonly log: EventLog;
  /** `acquire@1`, `append@2:0,1`, `renew@11`, `release@8`… */
  readonly calls: string[];
  readonly stored: ResponseStreamEvent[];
}

export function fakeLog(options: FakeLogOptions = {}): FakeLog {
  const appendDelay = options.appendDelay ?? 3;
  const leaseDelay = options.leaseDelay ?? 0;
  const calls: string[] = [];
  const stored: ResponseStreamEvent[] = [];
  let appends = 0;
  const now = () => asyncScheduler.now();
  const later = <T>(delay: number, settle: () => T): Promise<T> =>
    ({
      then(ok: (v: T) => void, fail: (e: unknown) => void) {
        asyncScheduler.schedule(() => {
          let v: T;
          try {
            v = settle();
          } catch (e) {
            fail(e);
            return;
          }
          ok(v);
        }, delay);
      },
    }) as unknown as Promise<T>;
  const lease = (ms: number): Lease => ({ token: 1, expiresAt: now() + ms });
  const log: EventLog = {
    acquire(_scope, ms) {
      calls.push(`acquire@${now()}`);
      return later(leaseDelay, () => {
        if (options.failAcquire !== undefined) throw options.failAcquire;
        return lease(ms);
      });
    },
    renew(_scope, _token, ms) {
      calls.push(`renew@${now()}`);
      return later(leaseDelay, () => lease(ms));
    },
    release() {
      calls.push(`release@${now()}`);
      return later(leaseDelay, () => undefined);
    },
    append(_scope, _token, events) {
      const n = ++appends;
      calls.push(`append@${now()}:${events.map((e) => e.sequence_number).join(',')}`);
      return later(appendDelay, () => {
        if (options.failAppend?.call === n) throw options.failAppend.error;
        stored.push(...events);
      });
    },
    read: () => Promise.reject(new EventLogError('unavailable', 'not in the fake')),
    wait: () => Promise.reject(new EventLogError('unavailable', 'not in the fake')),
    state: () => Promise.reject(new EventLogError('unavailable', 'not in the fake')),
    cancel: () => Promise.reject(new EventLogError('unavailable', 'not in the fake')),
    close: () => Promise.resolve(),
  };
  return { log, calls, stored };
}
