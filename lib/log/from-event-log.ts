import { Observable, throwError, type Subscription } from 'rxjs';
import { checkCursor } from '../cursor.js';
import { coarseTimeout } from '../coarse-timer.js';
import { EventLogError, StreamInterruptedError } from '../errors.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import type { ClientConfig } from '../http/config.js';
import { retrieveResponseStream } from '../http/transports.js';
import { canFollow, type FollowableEventLog } from './follow.js';
import { lostError } from './lost.js';
import { isTerminalEvent } from './scope.js';
import type { EventLog, LogScope } from './types.js';
import { durationMs, nested, positiveDurationMs, positiveInt } from '../options.js';
import { checkClientConfig } from '../http/config.js';
import { asEventLogError, checkLogWriterOptions, LogWriter, type LogWriterOptions } from './writer.js';
import { DEFAULT_NOT_FOUND_TIMEOUT_MS } from './defaults.js';

export interface FromEventLogOptions extends LogWriterOptions {
  /**
   * Deliver only events with a `sequence_number` above this one (a cursor saved by the reader): an integer ≥ 0,
   * else the stream fails with `InvalidOptionError`. A cursor past the stream's last event delivers nothing until an
   * event above it is stored, and completes when the stream ends.
   */
  readonly startingAfter?: number;
  /** The application's owner of the stream. Default `''`. */
  readonly owner?: string;
  /** How long to wait for a stream that does not exist yet, in ms, before `EventLogError('not_found')`. Default 5000 (as the gateway's). */
  readonly notFoundTimeoutMs?: number;
  /**
   * Where to continue the stream when its producer's lease lapses before a terminal event: this reader takes
   * the lease over, continues the provider's stream with `retrieveResponseStream` after the last stored
   * event, appends what arrives (batched like `persistTo`, under `leaseMs`) and delivers it. Without it, a
   * lapsed producer ends the stream with a retryable `StreamInterruptedError`.
   */
  readonly upstream?: ClientConfig;
  /** Events read per round trip. Default 500. */
  readonly pageSize?: number;
  /** Longest single wait for news, in ms (the lease is checked again after it). Default 1000. */
  readonly pollMs?: number;
}

const seqOf = (e: ResponseStreamEvent): number | undefined => (typeof e.sequence_number === 'number' ? e.sequence_number : undefined);

/**
 * The events of a response stream from an {@link EventLog}: the stored ones after `startingAfter`, then the
 * live ones as they are appended, each `sequence_number` exactly once and in order, completing after the
 * terminal event. Works whether the response has finished, is in progress, or has not started yet (it
 * waits up to `notFoundTimeoutMs`, then fails with `EventLogError('not_found')`). A stream ended by
 * `cancel` completes after its stored events (without a terminal event: check `log.state` to tell).
 * When the producer's lease lapses before a terminal event, the reader takes over with `upstream`, or
 * else fails with `StreamInterruptedError` (retryable, with the last sequence number) within about the
 * lease time. Unsubscribing aborts the waits, stops the timers and releases a lease taken over.
 *
 * ```ts
 * fromEventLog(log, responseId, { startingAfter: saved, owner: userId, upstream: config })
 *   .pipe(outputText())
 *   .subscribe(render);
 * ```
 */
export function fromEventLog(log: EventLog, responseId: string, options: FromEventLogOptions = {}): Observable<ResponseStreamEvent> {
  // Refused alike on every log, before it is read: a past-the-end cursor is valid (nothing until the stream ends).
  // Every option too: an InvalidOptionError as the Observable's error, before the log is read.
  let notFoundTimeoutMs: number, pageSize: number, pollMs: number;
  try {
    const invalid = checkCursor(options.startingAfter);
    if (invalid) throw invalid;
    notFoundTimeoutMs = durationMs('notFoundTimeoutMs', options.notFoundTimeoutMs, DEFAULT_NOT_FOUND_TIMEOUT_MS);
    pageSize = positiveInt('pageSize', options.pageSize, 500);
    pollMs = positiveDurationMs('pollMs', options.pollMs, 1000);
    checkLogWriterOptions(options);
    if (options.upstream !== undefined) nested('upstream', () => checkClientConfig(options.upstream));
  } catch (e) {
    return throwError(() => e);
  }
  const scope: LogScope = { responseId, owner: options.owner };
  return new Observable<ResponseStreamEvent>((subscriber) => {
    // What unsubscribing stops: the follow and the takeover's writer by callback; a log's `wait` by a signal, made
    // only for a log that is polled. (An AbortController's abort cost 4-12 us on Node 20, most of a reader's
    // own teardown, whether or not anything listened.)
    const onStop = new Set<() => void>();
    let controller: AbortController | undefined;
    const signal = (): AbortSignal => (controller ??= new AbortController()).signal;
    let last = options.startingAfter;
    /** The highest sequence_number delivered (not the cursor it started after): the log must still hold it. */
    let delivered: number | undefined;
    let writer: LogWriter | undefined;
    let upstream: Subscription | undefined;
    const stopped = (): boolean => subscriber.closed;

    /** Delivers `e` unless seen; `true` when it was the terminal event (and the stream completed). */
    const deliver = (e: ResponseStreamEvent): boolean => {
      const n = seqOf(e);
      if (n === undefined || (last !== undefined && n <= last)) return false;
      last = delivered = n;
      subscriber.next(e);
      return isTerminalEvent(e);
    };

    /** Delivers what is stored after `last`; `true` at the terminal event. */
    const drain = async (): Promise<boolean> => {
      for (;;) {
        const page = await log.read(scope, last, pageSize);
        for (const e of page) {
          if (stopped()) return true;
          if (deliver(e)) return true;
        }
        if (page.length < pageSize) return false;
      }
    };

    const takeOver = async (config: ClientConfig): Promise<'followed' | 'taken'> => {
      const taken = await new Promise<boolean>((resolve, reject) => {
        const w = new LogWriter(log, scope, options, (e) => {
          if (writer === undefined && e.reason === 'lease_held') return resolve(false); // another reader was first
          if (writer === undefined) return reject(e);
          upstream?.unsubscribe();
          if (e.reason !== 'fenced') return subscriber.error(e);
          // Fenced by a cancel: the stream ended for every reader, this one included.
          log.state(scope).then(
            (st) => (st?.end === 'cancelled' ? subscriber.complete() : subscriber.error(e)),
            () => subscriber.error(e),
          );
        });
        w.acquire(() => {
          writer = w;
          resolve(true);
        });
        onStop.add(() => w.stop(true));
      });
      if (!taken || stopped()) return 'followed';
      // The old producer is fenced off now: what is stored is final up to here.
      if (await drain()) {
        writer?.finish(() => undefined);
        if (!stopped()) subscriber.complete();
        return 'taken';
      }
      const st = await log.state(scope);
      if (st?.end !== undefined) {
        writer?.stop(true);
        if (!stopped()) subscriber.complete();
        return 'taken';
      }
      if (stopped()) return 'taken';
      const w = writer!;
      // Continue after what the log holds, not after this reader's cursor: a reader may be ahead of the log
      // (persistTo passes events on before they are durable), and the log must end whole for every reader.
      let stored = st?.lastSequenceNumber;
      upstream = retrieveResponseStream(responseId, { startingAfter: stored }, config).subscribe({
        next: (e) => {
          const n = seqOf(e);
          if (n === undefined || (stored !== undefined && n <= stored)) return;
          stored = n;
          w.push(e);
          deliver(e);
        },
        error: (err: unknown) => w.finish(() => subscriber.error(err)),
        complete: () => w.finish(() => subscriber.complete()),
      });
      return 'taken';
    };

    /**
     * The live part over a log that pushes new events ({@link FollowableEventLog}): one registration for as long
     * as events come, no round trip per event. After `pollMs` without news (or when the lease may have lapsed, or
     * the stream ended) it checks the log as `run` does. 'done' once the reader ended; 'lapsed' for `run` to handle.
     */
    const follow = (flog: FollowableEventLog, expiresAt: number | undefined, deadline: number): Promise<'done' | 'lapsed'> =>
      new Promise<'done' | 'lapsed'>((resolve, reject) => {
        let timer: (() => void) | undefined; // cancels the pending check
        let finished = false;
        let checking = false;
        let again = false;
        let lastNews = 0; // none yet: the first timer checks
        let syncedAt = 0; // when the follow last had every stored event (none yet)
        let started = expiresAt !== undefined; // the stream exists (else: not yet, wait up to `deadline`)
        const finish = (result: 'done' | 'lapsed' | Error): void => {
          if (finished) return;
          finished = true;
          timer?.();
          unfollow();
          onStop.delete(onAbort);
          if (result instanceof Error) reject(result);
          else resolve(result);
        };
        const complete = (): void => {
          finish('done');
          if (!stopped()) subscriber.complete();
        };
        const onAbort = (): void => finish('done');
        const arm = (ms: number): void => {
          timer?.();
          // Due with the other readers' checks of the same sixteenth of pollMs (never early), so that a log that
          // gathers a turn's calls answers them together (lib/coarse-timer.ts).
          timer = coarseTimeout(onTimer, Math.max(1, ms), pollMs / 16);
        };
        const onTimer = (): void => {
          timer = undefined;
          const quiet = Date.now() - lastNews;
          // News came meanwhile: the producer is alive; look again pollMs after the last of it.
          if (quiet < pollMs) arm(pollMs - quiet);
          else void check();
        };
        const check = async (): Promise<void> => {
          if (checking) {
            again = true;
            return;
          }
          checking = true;
          // The follow read the stream within the last 2 × pollMs: it is slow (a busy log or reader), not stalled,
          // and hands over what is stored by itself; reading it here too only adds to the load. Else read the log.
          let read = Date.now() - syncedAt >= 2 * pollMs;
          try {
            do {
              again = false;
              if (finished) return;
              const before = last;
              if (read && (await drain())) return complete();
              if (finished) return;
              // What was delivered before asking: the follow may hand over newer events while the state is on its
              // way (another connection), and a state read before they were stored is not behind them.
              const asked = delivered;
              // And whether it had started: "no stream" from before it started is not a stream that expired.
              const startedAsked = started;
              const st = await log.state(scope);
              if (finished) return;
              const lost = lostError(responseId, asked, st);
              if (lost !== undefined) return finish(lost);
              if (st === undefined && !startedAsked) {
                const remaining = deadline - Date.now();
                if (remaining <= 0 && !started) return finish(new EventLogError('not_found', `no stream after ${notFoundTimeoutMs} ms`, responseId));
                arm(started ? 0 : Math.min(pollMs, remaining));
                continue;
              }
              if (st === undefined) return finish(new EventLogError('not_found', 'the stream expired while it was read', responseId));
              started = true;
              if (st.lastSequenceNumber !== undefined && (last === undefined || st.lastSequenceNumber > last)) {
                if (!read && st.end === undefined && st.lease !== undefined) arm(Math.min(pollMs, st.lease.expiresAt - Date.now() + 5));
                // Stored but not readable yet (a log that hands over only what replicas confirmed): the follow
                // hands it over once confirmed; a producer gone before confirming it lapsed.
                else if (read && last === before) {
                  if (st.end === undefined && st.lease === undefined) return finish('lapsed');
                  arm(st.lease === undefined ? pollMs : Math.min(pollMs, st.lease.expiresAt - Date.now() + 5));
                } else again = read = true;
              } else if (st.end !== undefined) return complete();
              else if (st.lease === undefined) return finish('lapsed');
              else arm(Math.min(pollMs, st.lease.expiresAt - Date.now() + 5));
            } while (again);
          } catch (e) {
            finish(e instanceof Error ? e : asEventLogError(e, responseId));
          } finally {
            checking = false;
          }
        };
        const recheck = async (e: EventLogError): Promise<void> => {
          try {
            const asked = delivered; // as in check
            finish(lostError(responseId, asked, await log.state(scope)) ?? (delivered === undefined ? 'lapsed' : e));
          } catch (err) {
            finish(err instanceof Error ? err : asEventLogError(err, responseId));
          }
        };
        const unfollow = flog.follow(scope, last, {
          events: (batch) => {
            if (finished) return;
            lastNews = Date.now();
            started = true;
            for (const e of batch) {
              if (stopped()) return finish('done');
              if (deliver(e)) return complete();
            }
          },
          end: () => void check(),
          // The log behind the follow's cursor after a failure: lost, if this reader delivered past it; else its
          // cursor was only a startingAfter past the stream's end, and it follows again.
          error: (e) => (e.reason === 'lost' ? void recheck(e) : finish(e)),
          synced: (at) => {
            if (at > syncedAt) syncedAt = at;
          },
        });
        onStop.add(onAbort);
        arm(Math.min(pollMs, expiresAt === undefined ? deadline - Date.now() : expiresAt - Date.now() + 5));
      });

    const run = async (): Promise<void> => {
      // Not started yet: wait for it, up to notFoundTimeoutMs.
      let state = await log.state(scope);
      const deadline = Date.now() + notFoundTimeoutMs;
      if (state === undefined && canFollow(log)) {
        // Followed from now on: its first events come in the same replies as every other stream's.
        if ((await follow(log, undefined, deadline)) === 'done') return;
        state = await log.state(scope);
      }
      while (state === undefined) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new EventLogError('not_found', `no stream after ${notFoundTimeoutMs} ms`, responseId);
        await log.wait(scope, undefined, Math.min(remaining, pollMs), signal());
        if (stopped()) return;
        state = await log.state(scope);
      }
      let stalled = false;
      for (;;) {
        if (stopped()) return;
        const before = last;
        if (await drain()) {
          if (!stopped()) subscriber.complete();
          return;
        }
        if (stopped()) return;
        const st = await log.state(scope);
        if (stopped()) return;
        // Behind what this reader delivered (a failover lost events): a typed end, never a gap or a repeat.
        const lost = lostError(responseId, delivered, st);
        if (lost !== undefined) throw lost;
        if (st === undefined) throw new EventLogError('not_found', 'the stream expired while it was read', responseId);
        // Stored but not readable yet (a log that hands over only what replicas confirmed): wait for it below.
        const pending = st.lastSequenceNumber !== undefined && (last === undefined || st.lastSequenceNumber > last);
        // (Once more at once after a read that found nothing: it may have come just after that read.)
        if (last !== before) stalled = false;
        if (pending && !stalled) {
          stalled = last === before;
          continue;
        }
        if (!pending && st.end !== undefined) {
          // Completed: the terminal event is stored (at or below the cursor when the reader started after it).
          subscriber.complete();
          return;
        }
        if (st.lease === undefined && st.end === undefined) {
          if (options.upstream === undefined) {
            throw new StreamInterruptedError(responseId, last, "the producer's lease lapsed before a terminal event");
          }
          if ((await takeOver(options.upstream)) === 'taken') return;
          continue;
        }
        const expiresAt = st.lease?.expiresAt ?? Date.now() + pollMs;
        if (canFollow(log)) {
          if ((await follow(log, expiresAt, deadline)) === 'done') return;
          continue;
        }
        const untilLapse = expiresAt - Date.now();
        await log.wait(scope, last, Math.min(pollMs, Math.max(1, untilLapse + 5)), signal());
      }
    };

    run().catch((e: unknown) => {
      if (stopped()) return;
      subscriber.error(e instanceof StreamInterruptedError || e instanceof EventLogError ? e : asEventLogError(e, responseId));
    });

    return () => {
      for (const f of [...onStop]) f();
      onStop.clear();
      controller?.abort();
      upstream?.unsubscribe();
      writer?.stop(true);
    };
  });
}
