import { DecodeError } from '../errors.js';
import type { Secrets } from '../redact.js';

// What the exchanges of `fromDurableStream` share: where the reader stands, what an exchange emits, how a body's
// data becomes messages.

/** Where a reader stands, shared by its exchanges. */
export interface ReadState {
  /** The resume point: the offset after the last batch delivered (or the one asked for). */
  offset: string;
  cursor: string | undefined;
  /** Caught up once (`Stream-Up-To-Date`): the next exchanges are live. */
  caughtUp: boolean;
  /** The stream is `application/json` (known from the last catch-up or long-poll answer). */
  json: boolean;
}

/** A batch of data, with the resume point after it. */
export type Batch = { readonly offset: string; readonly messages: readonly unknown[] } | { readonly offset: string; readonly bytes: Uint8Array };

/** What an exchange emits: batches, `PROGRESS` (the position moved without data) and `END` (EOF, or caught up when not live). */
export const PROGRESS = 'progress' as const;
export const END = 'end' as const;
export type Step = Batch | typeof PROGRESS | typeof END;

export interface ExchangeContext {
  readonly url: URL;
  /** The URL as errors show it: origin and path only. */
  readonly shownUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly secrets: Secrets;
  readonly fetch: typeof fetch;
  readonly live: 'sse' | 'long-poll' | false;
}

export function isJsonType(contentType: string | null): boolean {
  return contentType !== null && contentType.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** The protocol's `true` (case-insensitive); anything else is absent (section 4.1). */
export const isTrue = (v: string | null | undefined): boolean => v?.toLowerCase() === 'true';

export function utf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DecodeError('invalid UTF-8 in a JSON-mode durable stream');
  }
}

/** The messages of a JSON-mode body or SSE data event: an array's elements (section 9.1.5), a lone value as one. */
export function messagesOf(text: string): unknown[] {
  if (text.trim() === '') return [];
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new DecodeError(`malformed JSON (${text.length} characters) in a JSON-mode durable stream`);
  }
  return Array.isArray(v) ? v : [v];
}
