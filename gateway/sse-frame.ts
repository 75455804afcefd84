// A Responses event as an SSE frame for a client: `id: <sequence_number>`, `event: <type>`, `data: <JSON>` (the
// upstream's own text when the decoder kept it), and the headers of such a stream. The pump: gateway/sse.ts.
import { spacedRawDataOf } from '../lib/decode/raw-data.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx and friends: do not buffer the stream.
  'x-accel-buffering': 'no',
} as const;

/** One SSE event: `id:` (its sequence number, what `Last-Event-ID` brings back), `event:` and `data:`. */
export function sseFrame(e: ResponseStreamEvent): string {
  const seq = e.sequence_number;
  // The upstream's own text when the decoder kept it (the same JSON, not serialised again), with the space that
  // follows `data:`; one with line breaks (multi-line `data:`) would need a `data:` per line: serialised instead.
  const raw = spacedRawDataOf(e);
  const data = raw !== undefined && raw.indexOf('\n') === -1 ? raw : ` ${JSON.stringify(e)}`;
  return `${Number.isSafeInteger(seq) ? `id: ${seq as number}\n` : ''}${frameHead(e.type)}${data}\n\n`;
}

/** `event: <type>\ndata:` of the types met (a few dozen: the documented ones), each checked once, not per event. */
const heads = new Map<string, string>();
/** More types than the API has: past this many (or past this length), a head is made per event (an upstream inventing types gets no cache). */
const MAX_HEADS = 256;
const MAX_CACHED_TYPE = 64;
const MESSAGE_HEAD = 'event: message\ndata:';

/** The last type asked for and its head: a run of deltas asks for the same one (a comparison, not a hash of a fresh string). */
let lastType: unknown = undefined;
let lastHead = MESSAGE_HEAD;

function frameHead(type: unknown): string {
  if (type === lastType) return lastHead;
  if (typeof type !== 'string') return MESSAGE_HEAD;
  let head = heads.get(type);
  if (head === undefined) {
    // A type with a line break would forge SSE fields: refused upstream by the decoder, checked again here.
    head = /[\r\n]/.test(type) ? MESSAGE_HEAD : `event: ${type}\ndata:`;
    if (heads.size >= MAX_HEADS || type.length > MAX_CACHED_TYPE) return head;
    heads.set(type, head);
  }
  lastType = type;
  lastHead = head;
  return head;
}
