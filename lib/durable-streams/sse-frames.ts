// SSE framing of a Durable Streams read (section 5.8): one `event: data` per batch, always followed by its
// `event: control`. Every line of a payload gets its own `data:` prefix, so a CR or LF inside the data can never
// end the event early or start a forged one.

import type { Entry } from './store.js';

/** What a control event says about the position after the batch before it. */
export interface ControlFields {
  readonly streamNextOffset: string;
  readonly streamCursor?: string;
  readonly upToDate?: boolean;
  readonly streamClosed?: boolean;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** `data:` lines for a payload. A line starting with a space keeps it (clients strip exactly one after `data:`). */
function dataLines(payload: string): string {
  let out = '';
  for (const line of payload.split(LINE_BREAK)) out += line.startsWith(' ') ? `data: ${line}\n` : `data:${line}\n`;
  return out;
}

export function controlEvent(fields: ControlFields): string {
  const body: Record<string, string | boolean> = { streamNextOffset: fields.streamNextOffset };
  if (fields.streamCursor !== undefined) body['streamCursor'] = fields.streamCursor;
  if (fields.upToDate === true) body['upToDate'] = true;
  if (fields.streamClosed === true) body['streamClosed'] = true;
  return `event: control\n${dataLines(JSON.stringify(body))}\n`;
}

/** A JSON stream's batch: its messages as one array, one message per line (JSON text holds no raw line breaks). */
export function jsonDataEvent(entries: readonly Entry[]): string {
  let out = 'event: data\ndata:[\n';
  for (let i = 0; i < entries.length; i++) out += dataLines(entryText(entries[i] as Entry) + (i + 1 < entries.length ? ',' : ''));
  return `${out}data:]\n\n`;
}

/** A text/* stream's batch, as UTF-8 text. */
export function textDataEvent(entries: readonly Entry[]): string {
  return `event: data\n${dataLines(concatText(entries))}\n`;
}

/** Any other stream's batch, base64 (standard alphabet, padded) on one line; empty bytes give an empty payload. */
export function base64DataEvent(entries: readonly Entry[]): string {
  return `event: data\ndata:${entryBytes(entries).toString('base64')}\n\n`;
}

export function entryText(entry: Entry): string {
  return typeof entry === 'string' ? entry : Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength).toString('utf8');
}

function concatText(entries: readonly Entry[]): string {
  return entries.every((e) => typeof e === 'string') ? entries.join('') : entryBytes(entries).toString('utf8');
}

/** The entries' bytes end to end (a `string` entry is its UTF-8). */
export function entryBytes(entries: readonly Entry[]): Buffer {
  if (entries.length === 1) {
    const e = entries[0] as Entry;
    return typeof e === 'string' ? Buffer.from(e, 'utf8') : Buffer.from(e.buffer, e.byteOffset, e.byteLength);
  }
  return Buffer.concat(entries.map((e) => (typeof e === 'string' ? Buffer.from(e, 'utf8') : e)) as unknown as readonly Uint8Array[]);
}
