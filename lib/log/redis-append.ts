import { EventLogError } from '../errors.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import { appendBatcher } from './redis-append-batch.js';
import { eventLogErrorOf, isCluster, type RedisConnections, unavailable } from './redis-connection.js';
import { fenced } from './redis-lease.js';
import type { RedisLogSettings } from './redis-options.js';
import { APPEND, APPEND_MANY } from './redis-scripts.js';
import type { RunScript } from './redis-run-script.js';
import { isTerminalEvent } from './scope.js';
import type { EventLog, LogScope } from './types.js';

// The write path of `redisEventLog`: an append is one script (fencing token, replayed sequence numbers,
// limits and expiries checked atomically); on a single Redis the appends of one event-loop turn share a call.

/** The sequence number an event is stored under; events without a non-negative integer one cannot be placed. */
const placeable = (e: ResponseStreamEvent): boolean => Number.isSafeInteger(e.sequence_number) && (e.sequence_number as number) >= 0;

export function redisAppend(
  conn: RedisConnections,
  run: RunScript,
  keysOf: (scope: LogScope) => string[],
  settings: RedisLogSettings,
): EventLog['append'] {
  const { liveTtlMs, ttlMs, maxEvents, maxBytes } = settings;

  /** What an APPEND returned, as the contract's errors. */
  const appendResult = (scope: LogScope, token: number, r: readonly string[]): void => {
    if (r[0] === 'fenced') throw fenced(scope, token);
    if (r[0] === 'limit') {
      const what = r[1] === 'events' ? `${r[2]} events (maxEvents ${maxEvents})` : `${r[2]} bytes (maxBytes ${maxBytes})`;
      throw new EventLogError('limit', `the stream would hold ${what}`, scope.responseId);
    }
  };

  // The appends of all streams asked for in one turn of the event loop go to Redis as one script call (on a
  // single Redis): with many streams, each carrying a few events, the calls and round trips do not grow with
  // the number of streams.
  const appends = appendBatcher((batch) => {
    const first = batch[0]!;
    if (batch.length === 1) return run(APPEND, first.scope, [first.token, liveTtlMs, ttlMs, maxEvents, maxBytes, ...first.args]);
    const keys: string[] = [];
    const args: (string | number)[] = [liveTtlMs, ttlMs, maxEvents, maxBytes];
    for (const a of batch) {
      keys.push(...keysOf(a.scope));
      args.push(a.token, a.args.length / 3);
      for (const x of a.args) args.push(x);
    }
    return run(APPEND_MANY, first.scope, args, keys);
  });

  return async (scope, token, events) => {
    conn.ensureOpen(scope);
    const args: string[] = [];
    for (const e of events) {
      if (!placeable(e)) continue;
      args.push(String(e.sequence_number), isTerminalEvent(e) ? '1' : '0', JSON.stringify(e));
    }
    const c = await conn.timed(conn.client(), scope);
    let r: string[];
    if (isCluster(c)) r = await run(APPEND, scope, [token, liveTtlMs, ttlMs, maxEvents, maxBytes, ...args]);
    else {
      try {
        r = await appends.add(scope, token, args);
      } catch (e) {
        // A failed batch fails each of its appends, each naming its own response.
        throw e instanceof EventLogError && e.responseId !== scope.responseId ? eventLogErrorOf(e, scope.responseId) : unavailable(e, scope);
      }
    }
    appendResult(scope, token, r);
  };
}
