import type { ResponseStreamEvent } from '../events/responses.js';
import { checkAfter } from '../cursor.js';
import { EventLogError } from '../errors.js';
import type { FollowableEventLog, FollowHandlers } from './follow.js';
import { asOwnError, type RedisConnections, unavailable } from './redis-connection.js';
import { redisStreamKeys } from './redis-keys.js';
import type { RedisLogSettings } from './redis-options.js';
import { eventsOf, hasEnd, lastOf, parseEntries } from './redis-entries.js';
import { tailRoute, xreadIds } from './redis-read.js';
import { stateOf } from './redis-state.js';
import type { RunScript } from './redis-run-script.js';
import type { StreamEntry } from './redis-stream-id.js';
import { followRiding, sequenceOf } from './redis-tail-retry.js';
import type { LogScope } from './types.js';

// The follow capability (lib/log/follow.ts) of `redisEventLog`: a follower is one more consumer of the tail
// reader of its stream (the shared one on a single Redis, its master's on a Cluster), riding through a failure
// of it (a restart, a failover) with its cursor, within the retry budget. Coming back after a failure, it
// first checks that the stream still holds what it was handed: a failover can lose the entries its master had
// not passed on to the replica that took over, and a reader must not go on past such a gap as if nothing happened.

export function redisFollow(conn: RedisConnections, run: RunScript, settings: RedisLogSettings): FollowableEventLog['follow'] {
  const { keyPrefix } = settings;
  const route = tailRoute(conn, settings);

  /**
   * Throws `EventLogError('lost')` when the stream no longer reaches `cursor` (the entry last handed over, or the
   * cursor the follow started after): events lost in a failover or a restart. A reader that started after a
   * cursor past the stream's end gets it too; fromEventLog tells the two apart by what it delivered.
   */
  const stillReaches = async (scope: LogScope, cursor: string): Promise<undefined> => {
    if (cursor === xreadIds(undefined)) return undefined; // from the start: nothing to reach
    const at = sequenceOf(cursor);
    const st = await stateOf(run, scope);
    const last = st?.lastSequenceNumber;
    if (last !== undefined && last >= at) return undefined;
    const holds = st === undefined ? 'the stream is gone from the log' : `the log holds the stream up to sequence_number ${last ?? '(none)'}`;
    throw new EventLogError('lost', `${holds} after a failure, below the follow's cursor ${at} (events lost in a failover or restart?)`, scope.responseId);
  };

  return (scope, after, h) => {
    checkAfter(after);
    let stopped = false;
    const isStopped = (): boolean => stopped || conn.isClosed();
    // A handler may unfollow from inside a call: nothing more is called after that.
    const guarded: FollowHandlers = {
      events: (batch) => !isStopped() && h.events(batch),
      end: () => !isStopped() && h.end(),
      error: (e) => {
        if (isStopped()) return;
        stopped = true;
        h.error(e);
      },
      synced: (at) => !isStopped() && h.synced?.(at),
    };
    const { events } = redisStreamKeys(keyPrefix, scope);
    const confirmed = settings.replicas > 0 ? confirmedOnly(xreadIds(after), after) : undefined;
    // The highest sequence number handed over: an entry after the cursor may also hold events before it.
    let seen = after ?? -1;
    // Only the events key: a cancel puts its entry there too (the end key is for `wait`).
    const unfollow = followRiding(
      route,
      events,
      xreadIds(after),
      (entries) => {
        let batch: ResponseStreamEvent[];
        let ended: boolean;
        try {
          if (confirmed === undefined) {
            batch = parseEntries(entries, seen);
            seen = lastOf(batch, seen);
            ended = hasEnd(entries);
          } else ({ batch, ended } = confirmed.take(entries));
        } catch (e) {
          unfollow();
          guarded.error(unavailable(e, scope));
          return;
        }
        if (batch.length > 0) guarded.events(batch);
        if (ended) guarded.end();
      },
      (e) => guarded.error(asOwnError(e, scope)),
      h.synced === undefined ? undefined : guarded.synced,
      // Holding unconfirmed events: they may be gone now; read again after the last one handed over.
      async (cursor) => (confirmed === undefined ? stillReaches(scope, cursor) : (await stillReaches(scope, confirmed.drop()), confirmed.drop())),
    );
    return () => {
      stopped = true;
      unfollow();
    };
  };
}

/**
 * With `replicas`: a follower's events are held until a confirmation's mark (field `c`, CONFIRM in
 * lib/log/redis-scripts.ts) covers them: only events that survive their master's death are handed over. A
 * cancel's end hands over what is held, then ends. `drop` forgets what is held (after a failure: it may be
 * lost) and answers the cursor after the last event handed over, to read on from.
 */
function confirmedOnly(start: string, after: number | undefined): { take(entries: StreamEntry[]): { batch: ResponseStreamEvent[]; ended: boolean }; drop(): string } {
  let held: ResponseStreamEvent[] = [];
  let cursor = start;
  // The highest sequence numbers handed over and taken (held or handed over).
  let handed = after ?? -1;
  let seen = handed;
  const handOver = (upTo: number, out: ResponseStreamEvent[]): void => {
    let n = 0;
    while (n < held.length && (held[n]!.sequence_number ?? 0) <= upTo) n++;
    if (n === 0) return;
    for (let i = 0; i < n; i++) out.push(held[i]!);
    handed = held[n - 1]!.sequence_number ?? 0;
    cursor = `${handed}-1`;
    held = held.slice(n);
  };
  return {
    take(entries) {
      const batch: ResponseStreamEvent[] = [];
      let ended = false;
      for (const [, fields] of entries) {
        if (fields[0] === 'e') {
          eventsOf(fields[1] as string, seen, held);
          seen = lastOf(held, seen);
        } else if (fields[0] === 'c') handOver(Number(fields[1]), batch);
        else if (fields[0] === 'end') {
          handOver(Infinity, batch);
          ended = true;
        }
      }
      return { batch, ended };
    },
    drop() {
      held = [];
      seen = handed;
      return cursor;
    },
  };
}
