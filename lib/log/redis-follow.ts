import type { Redis } from 'ioredis';
import type { ResponseStreamEvent } from '../events/responses.js';
import type { FollowableEventLog, FollowHandlers } from './follow.js';
import { asOwnError, isCluster, type RedisConnections, unavailable } from './redis-connection.js';
import { redisStreamKeys } from './redis-keys.js';
import type { RedisLogSettings } from './redis-options.js';
import { checkAfter } from '../cursor.js';
import { hasEnd, parseEntries, xreadIds } from './redis-read.js';
import type { StreamEntry } from './redis-stream-id.js';
import type { LogScope } from './types.js';

// The follow capability (lib/log/follow.ts) of `redisEventLog`: on a single Redis a follower is one more
// consumer of the shared tail reader; on a Cluster it reads with a blocking connection of its own.

export function redisFollow(conn: RedisConnections, settings: RedisLogSettings): FollowableEventLog['follow'] {
  const { keyPrefix, timeoutMs } = settings;
  const { timed } = conn;

  /** `follow` on a Cluster: a blocking connection of its own (from the pool) reading the stream's entries straight. */
  const followOnCluster = (scope: LogScope, after: number | undefined, h: FollowHandlers, isStopped: () => boolean, onConn: (c: Redis | undefined) => void): void => {
    const { events, end } = redisStreamKeys(keyPrefix, scope);
    let id = xreadIds(after);
    let ended = false;
    void (async () => {
      while (!conn.isClosed() && !isStopped()) {
        const blocking = await conn.takeBlocking(scope);
        if (conn.isClosed() || isStopped()) {
          blocking.disconnect();
          return;
        }
        conn.lend(blocking);
        onConn(blocking);
        try {
          const keys = ended ? [events, id] : [events, end, id, '0-0'];
          const issued = Date.now();
          const got = (await timed(blocking.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', ...keys), scope, 1000 + timeoutMs)) as [string, StreamEntry[]][] | null;
          for (const [key, entries] of got ?? []) {
            if (isStopped()) return;
            if (key === events && entries.length > 0) {
              id = entries[entries.length - 1]![0];
              const batch = parseEntries(entries);
              if (batch.length > 0) h.events(batch);
              if (hasEnd(entries) && !ended) {
                ended = true;
                if (!isStopped()) h.end();
              }
            }
          }
          if (!ended && got?.some(([key, entries]) => key === end && entries.length > 0)) {
            ended = true;
            if (!isStopped()) h.end();
          }
          const mine = got?.find(([key]) => key === events)?.[1];
          if ((mine === undefined || mine.length < 500) && !isStopped()) h.synced?.(issued);
        } finally {
          onConn(undefined);
          conn.giveBack(blocking, !isStopped());
        }
      }
    })().catch((e: unknown) => {
      if (!conn.isClosed() && !isStopped()) h.error(unavailable(e, scope));
    });
  };

  return (scope, after, h) => {
    checkAfter(after);
    let stopped = false;
    let unfollow: (() => void) | undefined;
    let clusterConn: Redis | undefined;
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
    conn.client().then(
      (c) => {
        if (isStopped()) return;
        if (isCluster(c)) {
          followOnCluster(scope, after, guarded, isStopped, (x) => (clusterConn = x));
          return;
        }
        const { events } = redisStreamKeys(keyPrefix, scope);
        // Only the events key: a cancel puts its entry there too (the end key is for `wait`).
        unfollow = conn.tailOf(c).follow(
          events,
          xreadIds(after),
          (entries) => {
            let batch: ResponseStreamEvent[];
            try {
              batch = parseEntries(entries);
            } catch (e) {
              unfollow?.();
              guarded.error(unavailable(e, scope));
              return;
            }
            if (batch.length > 0) guarded.events(batch);
            if (hasEnd(entries)) guarded.end();
          },
          (e) => guarded.error(asOwnError(e, scope)),
          h.synced === undefined ? undefined : guarded.synced,
        );
      },
      (e: unknown) => guarded.error(unavailable(e, scope)),
    );
    return () => {
      stopped = true;
      unfollow?.();
      clusterConn?.disconnect(); // a Cluster follower's blocking XREAD
    };
  };
}
