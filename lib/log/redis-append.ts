import type { Cluster, Redis } from 'ioredis';
import { EventLogError } from '../errors.js';
import type { ResponseStreamEvent } from '../events/responses.js';
import { appendBatcher } from './redis-append-batch.js';
import { eventLogErrorOf, isCluster, type RedisConnections, unavailable } from './redis-connection.js';
import { fenced } from './redis-lease.js';
import type { RedisLogSettings } from './redis-options.js';
import { APPEND, APPEND_MANY } from './redis-scripts.js';
import { streamKeyBase } from './redis-keys.js';
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
  // Each stream's keys and key base, built once per scope (a writer keeps one scope object for its appends).
  const keyCache = new WeakMap<LogScope, string[]>();
  const keysFor = (scope: LogScope): string[] => {
    let keys = keyCache.get(scope);
    if (keys === undefined) keyCache.set(scope, (keys = keysOf(scope)));
    return keys;
  };
  const bases = new WeakMap<LogScope, string>();
  const baseOf = (scope: LogScope): string => {
    let base = bases.get(scope);
    if (base === undefined) bases.set(scope, (base = streamKeyBase(settings.keyPrefix, scope)));
    return base;
  };

  const appends = appendBatcher((batch) => {
    const first = batch[0]!;
    if (batch.length === 1) return run(APPEND, first.scope, [first.token, liveTtlMs, ttlMs, maxEvents, maxBytes, first.seqs, first.jsons.join('\n')], keysFor(first.scope));
    // Every stream's JSON in one argument (joined once, into one flat string), the rest three per stream: a
    // few arguments instead of thousands.
    const jsons: string[] = [];
    const args: (string | number)[] = [liveTtlMs, ttlMs, maxEvents, maxBytes, ''];
    for (const a of batch) {
      for (const j of a.jsons) jsons.push(j);
      args.push(baseOf(a.scope), a.token, a.seqs);
    }
    args[4] = jsons.join('\n');
    return run(APPEND_MANY, first.scope, args, []);
  });

  // The client, once known: the log's client never changes, so later appends need not wait a turn for it.
  let known: Redis | Cluster | undefined;

  return async (scope, token, events) => {
    conn.ensureOpen(scope);
    let seqs = '';
    let bytes = 0;
    const jsons: string[] = [];
    for (const e of events) {
      if (!placeable(e)) continue;
      const sep = jsons.length === 0 ? '' : ',';
      seqs += isTerminalEvent(e) ? `${sep}${e.sequence_number as number}t` : `${sep}${e.sequence_number as number}`;
      const json = JSON.stringify(e);
      bytes += json.length;
      jsons.push(json);
    }
    const c = known ?? (known = await conn.timed(conn.client(), scope));
    let r: string[];
    if (isCluster(c)) r = await run(APPEND, scope, [token, liveTtlMs, ttlMs, maxEvents, maxBytes, seqs, jsons.join('\n')], keysFor(scope));
    else {
      try {
        r = await appends.add({ scope, token, seqs, jsons, bytes });
      } catch (e) {
        // A failed batch fails each of its appends, each naming its own response.
        throw e instanceof EventLogError && e.responseId !== scope.responseId ? eventLogErrorOf(e, scope.responseId) : unavailable(e, scope);
      }
    }
    appendResult(scope, token, r);
  };
}
