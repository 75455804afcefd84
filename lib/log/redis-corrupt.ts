import { EventLogError } from '../errors.js';
import { unavailable } from './redis-connection.js';
import type { LogScope } from './types.js';

// A stream whose keys are not what the log left there (evicted, overwritten with another type, events past
// its recorded last): its calls fail with `EventLogError('corrupt')` naming the key, and the other streams of
// the same batch go on (lib/log/redis-slot-batch.ts `isolated`).

/** Redis's error without the script's SHA and line it appends. */
const bare = (message: string): string => message.replace(/\s*script: [0-9a-f]+, on @user_script:\d+\.?\s*$/, '').trim();

/** `EventLogError('corrupt')` for the stream's key `key`, with what Redis (or the script) found there. */
export const corrupt = (scope: LogScope, key: string, what: string): EventLogError =>
  new EventLogError('corrupt', `Redis key ${key} does not hold what the log stored there: ${bare(what)}`, scope.responseId);

/** Whether Redis's error says a key holds something else than the script expects. */
const KEY_TROUBLE = /^WRONGTYPE|equal or smaller than the target stream top item|exhausted the last possible ID/;

/**
 * A one-stream script call's failure as the log's error: a key holding something else (WRONGTYPE, a stream
 * past its recorded end) as `corrupt` naming it (read off the script line Redis names: the variable holding
 * the meta, events or end key), anything else as `unavailable` with Redis's message.
 */
export function streamFailure(e: unknown, scope: LogScope, keys: readonly string[], script: string): EventLogError {
  if (e instanceof EventLogError) return e;
  const message = e instanceof Error ? e.message : String(e);
  if (!KEY_TROUBLE.test(message)) return unavailable(e, scope);
  const line = /@user_script:(\d+)/.exec(message)?.[1];
  const text = line === undefined ? '' : (script.split('\n')[Number(line) - 1] ?? '');
  const named = /\bkm\b/.test(text) ? keys[0] : /\bke\b/.test(text) ? keys[1] : /\bkn\b/.test(text) ? keys[2] : undefined;
  return corrupt(scope, named ?? keys.join(', '), message);
}
