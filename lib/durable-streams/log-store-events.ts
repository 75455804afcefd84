import type { UnknownEvent } from '../events/responses.js';
import type { Entry, Producer } from './store.js';

// The events eventLogStreamStore keeps in the log, and how entries are written into them. Every event is a plain
// log event (`type` + `sequence_number`), so both logs store, read and wait on them as they do a response's events.

/** A producer tuple as stored: `[id, epoch, seq]`. */
export type StoredProducer = readonly [string, number, number];

/** One part of an incarnation's offset space kept in a data stream: entries `from` < n ≤ `to` are sequence numbers there. */
export interface Segment {
  readonly data: string;
  readonly from: number;
  readonly to: number;
}

/** A `created` event of a path's directory: the incarnation's config, immutable (cached by path and generation). */
export interface CreatedEvent extends UnknownEvent {
  readonly type: 'durable_stream.created';
  readonly sequence_number: number;
  /** The incarnation's id (random), in its data and access streams' names and its StreamInfo id. */
  readonly id: string;
  readonly content_type: string;
  readonly ttl_seconds?: number;
  readonly expires_at?: string;
  readonly forked_from?: string;
  readonly fork_offset?: string;
  readonly fork_sub_offset?: number;
  /** The generation of the source this fork took a reference on. */
  readonly source_generation?: number;
  /** A fork's inherited entries: `[0, base)` stitched from its sources' data streams. */
  readonly inherited?: readonly Segment[];
  /** Epoch ms. */
  readonly created_at: number;
}

/** The other events of a directory: a delete (soft while forks read it), fork references taken and given back. */
export interface DirectoryChange extends UnknownEvent {
  readonly type: 'durable_stream.deleted' | 'durable_stream.forked' | 'durable_stream.unforked' | 'durable_stream.purged';
  readonly sequence_number: number;
  readonly generation: number;
  readonly soft?: boolean;
}

/** One entry of a data stream: its sequence number is the entry count after it (the offset `formatOffset` mints). */
export interface EntryEvent extends UnknownEvent {
  readonly type: 'durable_stream.entry';
  readonly sequence_number: number;
  /** Text (a JSON message, or UTF-8 text appended as a string). */
  readonly text?: string;
  /** Bytes, base64. */
  readonly b64?: string;
  /** The producer of the append whose last entry this is. */
  readonly producer?: StoredProducer;
  /** The `Stream-Seq` of the append whose last entry this is. */
  readonly stream_seq?: string;
}

/** The close of a data stream: terminal for the log (lib/log/scope.ts), one past the last entry. */
export interface ClosedEvent extends UnknownEvent {
  readonly type: 'durable_stream.closed';
  readonly sequence_number: number;
  readonly producer?: StoredProducer;
  readonly stream_seq?: string;
}

export type DataEvent = EntryEvent | ClosedEvent;

export const CLOSED_TYPE = 'durable_stream.closed';

export function isEntryEvent(e: { readonly type?: unknown }): e is EntryEvent {
  return e.type === 'durable_stream.entry';
}

export function isClosedEvent(e: { readonly type?: unknown }): e is ClosedEvent {
  return e.type === CLOSED_TYPE;
}

export function storedProducer(p: Producer | undefined): StoredProducer | undefined {
  return p === undefined ? undefined : [p.id, p.epoch, p.seq];
}

const CHUNK = 0x8000;

/** Node's Buffer when there is one (much faster base64 than btoa/atob), looked up without importing node:buffer. */
interface Base64Buffer {
  from(data: Uint8Array | string, encoding?: 'base64'): Uint8Array & { toString(encoding: 'base64'): string };
}
const NodeBuffer = (globalThis as unknown as { Buffer?: Base64Buffer }).Buffer;

function toBase64(bytes: Uint8Array): string {
  if (NodeBuffer !== undefined) return NodeBuffer.from(bytes).toString('base64');
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  if (NodeBuffer !== undefined) {
    const b = NodeBuffer.from(text, 'base64');
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  }
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** The event that stores `entry` as entry number `n` (1-based). */
export function entryEvent(n: number, entry: Entry): EntryEvent {
  return typeof entry === 'string'
    ? { type: 'durable_stream.entry', sequence_number: n, text: entry }
    : { type: 'durable_stream.entry', sequence_number: n, b64: toBase64(entry) };
}

/** The entry an event stores. */
export function entryOf(e: EntryEvent): Entry {
  return e.b64 !== undefined ? fromBase64(e.b64) : (e.text ?? '');
}

const encoder = new TextEncoder();

/** An entry's size in bytes (a read's budget counts these). */
export function entrySize(entry: Entry): number {
  return typeof entry === 'string' ? encoder.encode(entry).length : entry.length;
}

/** The entry's bytes (a fork's sub-offset cuts a byte stream's entry). */
export function entryBytes(entry: Entry): Uint8Array {
  return typeof entry === 'string' ? encoder.encode(entry) : entry;
}
