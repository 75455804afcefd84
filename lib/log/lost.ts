import { EventLogError } from '../errors.js';
import type { LogState } from './types.js';

// A reader that finds the log behind what it already delivered: events lost, e.g. when a Redis master died
// before its replica had them and the replica took over, or a Redis without persistence restarted. Going on
// would hand the reader's user a gap (the next events it gets are not the next ones of the stream) or, once
// the producer writes the lost numbers again, events it already had. It ends with this typed error instead.

/**
 * `EventLogError('lost')` when `state` (the log's state of the stream now) holds less than `delivered` (the
 * highest sequence_number already handed to the reader; `undefined`: none) or the stream is gone; else `undefined`.
 */
export function lostError(responseId: string, delivered: number | undefined, state: LogState | undefined): EventLogError | undefined {
  if (delivered === undefined) return undefined;
  if (state === undefined) {
    return new EventLogError('lost', `the stream is gone from the log, though sequence_number ${delivered} was already delivered from it (lost in a failover or restart?)`, responseId);
  }
  const stored = state.lastSequenceNumber;
  if (stored !== undefined && stored >= delivered) return undefined;
  return new EventLogError(
    'lost',
    `the log holds the stream up to sequence_number ${stored ?? '(none)'}, though ${delivered} was already delivered from it (events lost in a failover or restart?)`,
    responseId,
  );
}
