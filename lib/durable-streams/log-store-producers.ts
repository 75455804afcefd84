import type { ResponseStreamEvent } from '../events/responses.js';
import type { DataEvent, StoredProducer } from './log-store-events.js';
import { entryEvent, isClosedEvent, isEntryEvent } from './log-store-events.js';
import type { AppendRequest, AppendResult } from './store.js';
import { formatOffset } from './offsets.js';

// The writer state of one data stream (spec 5.2 and 5.2.1): its tail, closure, each producer's epoch and last seq,
// the last Stream-Seq. It is folded from the stored entries (each append's last entry carries its producer tuple and
// Stream-Seq), so every process derives the same state from the log; a process caches it with the data stream's last
// sequence number and reads only the events after that to bring it up to date.

export interface ProducerState {
  readonly epoch: number;
  readonly seq: number;
}

export interface WriterState {
  /** The data stream's last sequence number folded in (`undefined`: none yet). */
  last: number | undefined;
  /** Entries in the offset space (a fork's inherited ones included). */
  tail: number;
  closed: boolean;
  closedBy: StoredProducer | undefined;
  streamSeq: string | undefined;
  readonly producers: Map<string, ProducerState>;
}

export function emptyWriterState(base: number): WriterState {
  return { last: undefined, tail: base, closed: false, closedBy: undefined, streamSeq: undefined, producers: new Map() };
}

export function copyWriterState(s: WriterState): WriterState {
  return { ...s, producers: new Map(s.producers) };
}

/** Folds stored events (in order) into `s`. */
export function foldData(s: WriterState, events: readonly ResponseStreamEvent[]): void {
  for (const raw of events) {
    const e = raw as DataEvent;
    if (typeof e.sequence_number !== 'number') continue;
    s.last = e.sequence_number;
    if (isEntryEvent(e)) s.tail = e.sequence_number;
    else if (!isClosedEvent(e)) continue;
    if (e.producer !== undefined) s.producers.set(e.producer[0], { epoch: e.producer[1], seq: e.producer[2] });
    if (e.stream_seq !== undefined) s.streamSeq = e.stream_seq;
    if (isClosedEvent(e)) {
      s.closed = true;
      s.closedBy = e.producer;
    }
  }
}

/** The media type alone, lower case (`application/json; charset=utf-8` → `application/json`). */
export function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The events that store `entries` after entry `tail` (then the close), the last one carrying the writer's marks. */
export function appendEvents(tail: number, request: Pick<AppendRequest, 'entries' | 'close' | 'producer' | 'streamSeq'>): DataEvent[] {
  const events: DataEvent[] = request.entries.map((entry, i) => entryEvent(tail + i + 1, entry));
  if (request.close) events.push({ type: 'durable_stream.closed', sequence_number: tail + request.entries.length + 1 });
  const p = request.producer;
  const marks = {
    ...(p !== undefined && { producer: [p.id, p.epoch, p.seq] as const }),
    ...(request.streamSeq !== undefined && { stream_seq: request.streamSeq }),
  };
  if (events.length > 0) events[events.length - 1] = { ...events[events.length - 1], ...marks } as DataEvent;
  return events;
}

const sameProducer = (a: StoredProducer | undefined, p: AppendRequest['producer']): boolean =>
  a !== undefined && p !== undefined && a[0] === p.id && a[1] === p.epoch && a[2] === p.seq;

/**
 * Decides one append against the writer state `s` (the rules of spec 5.2 and 5.2.1, in the protocol's precedence:
 * closed, content type, producer, Stream-Seq) and, when it is accepted, applies it to `s` and returns its events.
 */
export function decideAppend(s: WriterState, streamType: string, request: AppendRequest): { result: AppendResult; events: DataEvent[] } {
  const none: DataEvent[] = [];
  const p = request.producer;
  if (s.closed) {
    if (p !== undefined && sameProducer(s.closedBy, p)) {
      return { result: { status: 'duplicate', tail: formatOffset(s.tail), closed: true, producer: { epoch: p.epoch, seq: p.seq } }, events: none };
    }
    if (request.entries.length === 0 && request.close) {
      return { result: { status: 'appended', tail: formatOffset(s.tail), closed: true }, events: none };
    }
    return { result: { status: 'closed', tail: formatOffset(s.tail) }, events: none };
  }
  if (request.entries.length === 0 && !request.close) return { result: { status: 'bad_request', reason: 'an append needs a body or Stream-Closed' }, events: none };
  if (request.entries.length > 0 && request.contentType !== undefined && mediaType(request.contentType) !== mediaType(streamType)) {
    return { result: { status: 'content_type_mismatch' }, events: none };
  }
  if (p !== undefined) {
    const known = s.producers.get(p.id);
    if (known === undefined && p.seq !== 0) return { result: { status: 'producer_seq_gap', expected: 0, received: p.seq }, events: none };
    if (known !== undefined) {
      if (p.epoch < known.epoch) return { result: { status: 'stale_epoch', epoch: known.epoch }, events: none };
      if (p.epoch > known.epoch && p.seq !== 0) return { result: { status: 'bad_request', reason: 'a new Producer-Epoch must start at Producer-Seq 0' }, events: none };
      if (p.epoch === known.epoch) {
        if (p.seq <= known.seq) {
          return { result: { status: 'duplicate', tail: formatOffset(s.tail), closed: s.closed, producer: { epoch: known.epoch, seq: known.seq } }, events: none };
        }
        if (p.seq > known.seq + 1) return { result: { status: 'producer_seq_gap', expected: known.seq + 1, received: p.seq }, events: none };
      }
    }
  }
  if (request.streamSeq !== undefined && s.streamSeq !== undefined && request.streamSeq <= s.streamSeq) {
    return { result: { status: 'stream_seq_conflict' }, events: none };
  }
  const events = appendEvents(s.tail, request);
  foldData(s, events);
  return {
    result: { status: 'appended', tail: formatOffset(s.tail), closed: s.closed, ...(p !== undefined && { producer: { epoch: p.epoch, seq: p.seq } }) },
    events,
  };
}
