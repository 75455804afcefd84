import type { ResponseStreamEvent } from '../events/responses.js';
import type { StreamEntry } from './redis-stream-id.js';

// The entries of a stream's events key (and of its live channel's messages, which say the same), as events.
// An entry's `e` holds one event's JSON under `<sequence_number>-1`, or, for the events of one append after
// its first, up to MAX_JOINED of them joined by '\r' under the last one's id (APPEND in lib/log/redis-scripts.ts:
// an XADD per event was half of an append's Redis CPU). No event's JSON holds a raw '\r' (JSON.stringify never writes
// one, and a writer re-serialises a kept `data:` text that has a line break), and the joined value is one line
// of a live message as it is. A reader of an earlier version fails on a joined value (not JSON), never skips
// it. An entry's id is its last event's: the entries after a cursor hold every event after it, and the first
// of them may also hold some at or before it, which a reader drops.

/**
 * The events of `entries` after sequence number `after` (-1: all), the first `max` of them; entries without `e`
 * (a cancel's end, a confirmation's mark) are skipped.
 */
export function parseEntries(entries: readonly StreamEntry[], after = -1, max = Infinity): ResponseStreamEvent[] {
  const out: ResponseStreamEvent[] = [];
  for (const [, fields] of entries) {
    if (out.length >= max) break;
    const at = fields.indexOf('e');
    if (at >= 0 && at % 2 === 0) eventsOf(fields[at + 1] as string, after, out, max);
  }
  return out;
}

/** Appends to `out` the events of one `e` value after sequence number `after`, until `out` holds `max`. */
export function eventsOf(value: string, after: number, out: ResponseStreamEvent[], max = Infinity): void {
  let nl = value.indexOf('\r');
  // One event: its entry came after the cursor, so it is after it.
  if (nl < 0) {
    out.push(JSON.parse(value) as ResponseStreamEvent);
    return;
  }
  let from = 0;
  for (;;) {
    const e = JSON.parse(nl < 0 ? value.slice(from) : value.slice(from, nl)) as ResponseStreamEvent;
    const s = e.sequence_number;
    if (s === undefined || s > after) out.push(e);
    if (nl < 0 || out.length >= max) return;
    from = nl + 1;
    nl = value.indexOf('\r', from);
  }
}

/** The highest sequence number of `batch` (parsed by parseEntries: in order), else `at`. */
export const lastOf = (batch: readonly ResponseStreamEvent[], at: number): number => Math.max(at, batch[batch.length - 1]?.sequence_number ?? at);

/** Whether entries hold the one a cancel adds to the events stream. */
export const hasEnd = (entries: readonly StreamEntry[]): boolean => entries.some(([, fields]) => fields[0] === 'end');
