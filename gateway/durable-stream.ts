// A recorded response as a read-only Durable Stream (JSON mode): one message per stored event (its JSON as the
// log keeps it), closed once the log's stream ended (terminal event stored, or cancelled). Offsets are counts
// (lib/durable-streams/offsets.ts): the offset after the event numbered `s` is `formatOffset(s + 1)`, so any
// instance mints the same offsets from the shared log, and a reader resumes on any of them. The store holds one
// stream, the (owner, response id) it was made for: another owner's response is simply not in it (not found).
import { rawDataOf } from '../lib/decode/raw-data.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { formatOffset, parseOffset, START_OFFSET, TAIL_OFFSET } from '../lib/durable-streams/offsets.js';
import type { BadRequest, DurableStreamStore, Entry, NotFound, ReadBatch, StreamInfo } from '../lib/durable-streams/store.js';
import type { EventLog, LogScope, LogState } from '../lib/log/types.js';

/** The media type of every recorded response's stream: one JSON message per event. */
export const RECORDED_CONTENT_TYPE = 'application/json';

/** Events per read of the log while a batch fills its byte budget. */
const PAGE = 512;

const NOT_FOUND: NotFound = { status: 'not_found' };
const badRequest = (reason: string): BadRequest => ({ status: 'bad_request', reason });

/** The count of events up to the log's last (the tail's count): sequence numbers past the last one stored. */
const tailCount = (state: LogState): number => (state.lastSequenceNumber === undefined ? 0 : state.lastSequenceNumber + 1);

/** The message an event is: its stored text when the log kept it (the upstream's own JSON), else its JSON. */
const textOf = (e: ResponseStreamEvent): string => rawDataOf(e) ?? JSON.stringify(e);

/**
 * The log's `after` for a count of entries: events numbered `count` or more come after it (`undefined`: from the
 * start). Sequence numbers may skip (an upstream's own numbering); an offset between two events is then simply
 * read from the next one.
 */
const afterOf = (count: number): number | undefined => (count === 0 ? undefined : count - 1);

/**
 * The read-only Durable Stream of the response recorded in `log` under `scope` (its id and owner). Every path the
 * handler names is this stream. No `create`, `append` or `delete`: the handler answers 405. A failure of the log
 * rejects (the handler answers 503, never in the log's words).
 */
export function recordedResponseStore(log: EventLog, scope: LogScope): DurableStreamStore {
  const infoOf = (state: LogState): StreamInfo => ({
    contentType: RECORDED_CONTENT_TYPE,
    // Response ids are never reused: the id names this incarnation.
    id: scope.responseId,
    tail: formatOffset(tailCount(state)),
    closed: state.end !== undefined,
  });

  /** The count an offset names on a stream whose tail is `tail`, or why it cannot be read. */
  const countOf = (offset: string, tail: number): number | BadRequest => {
    if (offset === START_OFFSET) return 0;
    if (offset === TAIL_OFFSET) return tail;
    const count = parseOffset(offset);
    if (count === undefined) return badRequest('malformed offset');
    // Never minted: the log's tail only grows, and every offset handed out was at or before it.
    if (count > tail) return badRequest('offset past the end of the stream');
    return count;
  };

  return {
    async info() {
      const state = await log.state(scope);
      return state === undefined ? NOT_FOUND : infoOf(state);
    },

    async read(_path, offset, { maxBytes }): Promise<ReadBatch | NotFound | BadRequest> {
      // The state first: once it shows the end, every event is stored, and reading to the last one is reading to the end.
      const state = await log.state(scope);
      if (state === undefined) return NOT_FOUND;
      const info = infoOf(state);
      const count = countOf(offset, tailCount(state));
      if (typeof count !== 'number') return count;
      const entries: Entry[] = [];
      let next = count;
      let bytes = 0;
      let full = false;
      let atEnd = count === tailCount(state);
      while (!atEnd && !full) {
        const page = await log.read(scope, afterOf(next), PAGE);
        for (const e of page) {
          const text = textOf(e);
          const size = Buffer.byteLength(text);
          // The budget is the read's, but a first entry larger than it is still returned whole.
          if (entries.length > 0 && bytes + size > maxBytes) {
            full = true;
            break;
          }
          entries.push(text);
          bytes += size;
          // (Always a number: a log stores no event without one.)
          next = (e.sequence_number ?? next - 1) + 1;
        }
        // A short page is the end of what is stored now (an empty one too: the stream expired in between).
        if (!full && page.length < PAGE) atEnd = true;
      }
      // Events stored since the state was read: the tail the batch shows is where it ends.
      const tail = next > tailCount(state) ? { ...info, tail: formatOffset(next) } : info;
      return { info: tail, entries, next: formatOffset(next), upToDate: atEnd, closed: atEnd && info.closed };
    },

    async wait(_path, offset, timeoutMs, signal) {
      let after: number | undefined;
      if (offset === TAIL_OFFSET) {
        const state = await log.state(scope);
        after = state?.lastSequenceNumber;
      } else if (offset !== START_OFFSET) {
        const count = parseOffset(offset);
        if (count === undefined) return false;
        after = afterOf(count);
      }
      try {
        return await log.wait(scope, after, timeoutMs, signal);
      } catch (e) {
        // An abort settles a wait (a log may reject for it); a failure of the log is the handler's 503.
        if (signal.aborted) return false;
        throw e;
      }
    },
  };
}
