import type { EventLog } from '../log/types.js';
import type { Incarnation } from './log-store-directory.js';
import { entryOf, entrySize, isEntryEvent, type Segment } from './log-store-events.js';
import type { LogStoreSettings } from './log-store-options.js';
import type { Entry } from './store.js';

// Reading an incarnation: its tail and closure from its data stream's state (one call: the close is the log's
// terminal event, one past the last entry), its entries from the segments of its offset space (a fork's inherited
// ones in its sources' data streams, then its own).

export interface DataState {
  /** Entries in the offset space. */
  readonly tail: number;
  readonly closed: boolean;
}

export async function dataState(log: EventLog, settings: LogStoreSettings, inc: Incarnation): Promise<DataState> {
  const state = await log.state(settings.scopes.get(inc.data));
  const last = state?.lastSequenceNumber;
  if (state?.end === 'completed' && last !== undefined) return { tail: last - 1, closed: true };
  return { tail: last ?? inc.base, closed: state?.end !== undefined };
}

/** The segments of `inc`'s offset space up to `tail`. */
export function segmentsOf(inc: Incarnation, tail: number): Segment[] {
  return [...inc.inherited, { data: inc.data, from: inc.base, to: tail }];
}

/** `inc`'s segments clipped to `[0, at)`: what a fork at `at` inherits. */
export function inheritedAt(inc: Incarnation, at: number): Segment[] {
  const out: Segment[] = [];
  for (const s of segmentsOf(inc, at)) {
    const to = Math.min(s.to, at);
    if (to > s.from) out.push({ data: s.data, from: s.from, to });
  }
  return out;
}

/** The first read asks for this many events; the next ones for what the budget left buys at the sizes seen so far. */
const FIRST_CHUNK = 4;
const MAX_CHUNK = 1000;

/**
 * The entries of `segments` after entry `from` (and before each segment's `to`), until `maxBytes` is spent (the
 * first entry always comes whole) or `count` entries came. Each log read asks for about as many events as the budget
 * left can take (the log parses every event it returns: 64 entries of 100 KB read for a 1 MB budget cost 6 times
 * what was sent).
 */
export async function readEntries(
  log: EventLog,
  settings: LogStoreSettings,
  segments: readonly Segment[],
  from: number,
  maxBytes: number,
  count = Infinity,
): Promise<Entry[]> {
  const out: Entry[] = [];
  let bytes = 0;
  let at = from;
  for (const seg of segments) {
    while (at >= seg.from && at < seg.to && out.length < count) {
      const affordable = out.length === 0 ? FIRST_CHUNK : Math.ceil((maxBytes - bytes) / (bytes / out.length)) + 1;
      const want = Math.max(1, Math.min(affordable, MAX_CHUNK, seg.to - at, count - out.length));
      const events = await log.read(settings.scopes.get(seg.data), at, want);
      let progressed = false;
      for (const e of events) {
        if (!isEntryEvent(e) || e.sequence_number !== at + 1 || at >= seg.to) break;
        const entry = entryOf(e);
        const size = entrySize(entry);
        if (out.length > 0 && bytes + size > maxBytes) return out;
        out.push(entry);
        bytes += size;
        at++;
        progressed = true;
        if (bytes >= maxBytes || out.length >= count) return out;
      }
      // A segment whose data the log no longer has (its retention dropped it): nothing more to read.
      if (!progressed) return out;
    }
  }
  return out;
}
