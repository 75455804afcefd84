// The log as one producer writes to it, watching for a cancel: an append or renewal fenced off because the
// stream was cancelled (by a cancel on any instance) calls `onCancelled`. `persistTo` records with
// `onWriteError: 'continue'`, which would otherwise stream on to this instance's client as if nothing had happened.
// A class: one per open stream, its methods shared (an object of ten closures was ~0.6 KB per idle stream).
import { EventLogError } from '../lib/errors.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { canFollow, type FollowableEventLog } from '../lib/log/follow.js';
import { forwardPacked } from '../lib/log/packed.js';
import { forwardSync } from '../lib/log/sync-append.js';
import type { EventLog, FollowHandlers, Lease, LogScope, LogState } from '../lib/log/types.js';

class CancelWatch implements EventLog {
  constructor(
    protected readonly log: EventLog,
    private readonly onCancelled: (scope: LogScope) => void,
  ) {}

  acquire(s: LogScope, ms: number): Promise<Lease> {
    return this.log.acquire(s, ms);
  }
  renew(s: LogScope, token: number, ms: number): Promise<Lease> {
    return this.check(s, this.log.renew(s, token, ms));
  }
  release(s: LogScope, token: number): Promise<void> {
    return this.log.release(s, token);
  }
  append(s: LogScope, token: number, events: readonly ResponseStreamEvent[]): Promise<void> {
    return this.check(s, this.log.append(s, token, events));
  }
  read(s: LogScope, after: number | undefined, limit?: number): Promise<ResponseStreamEvent[]> {
    return this.log.read(s, after, limit);
  }
  wait(s: LogScope, after: number | undefined, ms: number, signal?: AbortSignal): Promise<boolean> {
    return this.log.wait(s, after, ms, signal);
  }
  state(s: LogScope): Promise<LogState | undefined> {
    return this.log.state(s);
  }
  cancel(s: LogScope): Promise<void> {
    return this.log.cancel(s);
  }
  close(): Promise<void> {
    return this.log.close();
  }

  /** `p`, a call of the log for `scope`, with a fence by a cancel watched for. */
  check<T>(scope: LogScope, p: Promise<T>): Promise<T> {
    return p.catch((e: unknown) => this.fenced(scope, e));
  }

  private async fenced(scope: LogScope, e: unknown): Promise<never> {
    if (e instanceof EventLogError && e.reason === 'fenced') {
      const state = await this.log.state(scope).catch(() => undefined);
      if (state?.end === 'cancelled') this.onCancelled(scope);
    }
    throw e;
  }
}

/** The same, for a log that can `follow`: the capability passes through exactly when the wrapped log has it. */
class FollowableCancelWatch extends CancelWatch implements FollowableEventLog {
  follow(scope: LogScope, after: number | undefined, handlers: FollowHandlers): () => void {
    return (this.log as FollowableEventLog).follow(scope, after, handlers);
  }
}

/** `log`, calling `onCancelled` when a renewal or an append is fenced off by a cancel of the stream. */
export function watchCancel(log: EventLog, onCancelled: (scope: LogScope) => void): EventLog {
  const watch = canFollow(log) ? new FollowableCancelWatch(log, onCancelled) : new CancelWatch(log, onCancelled);
  // A log that takes its writers' events packed (redisEventLog) keeps taking them, watched the same way.
  forwardPacked(watch, log, (p) => ({ encode: p.encode, append: (s, token, events) => watch.check(s, p.append(s, token, events)) }));
  // One that acknowledges at once (memoryEventLog) too: a failure comes as a promise, watched the same way.
  return forwardSync(watch, log, (append) => (s, token, events) => {
    const answer = append(s, token, events);
    return answer === undefined ? undefined : watch.check(s, answer);
  });
}
