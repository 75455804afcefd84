import type { Observable } from 'rxjs';
import type { StreamSource } from '../../index';

/** How an Observable ended, with everything it emitted before. */
export interface Outcome<T> {
  readonly values: T[];
  readonly completed: boolean;
  readonly error?: unknown;
}

export function run<T>(o: Observable<T>): Promise<Outcome<T>> {
  return new Promise((resolve) => {
    const values: T[] = [];
    o.subscribe({
      next: (v) => values.push(v),
      error: (error: unknown) => resolve({ values, completed: false, error }),
      complete: () => resolve({ values, completed: true }),
    });
  });
}

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** `bytes` cut at the given offsets (sorted, deduplicated, inside the array). */
export function cutAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const cuts = [...new Set(offsets.filter((o) => o > 0 && o < bytes.length))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let start = 0;
  for (const c of cuts) {
    out.push(bytes.slice(start, c));
    start = c;
  }
  out.push(bytes.slice(start));
  return out;
}

/** A byte stream that hands out one chunk per pull. `onCancel` sees the reader's cancel. */
export function readable(chunks: readonly Uint8Array[], opts: { close?: boolean; onCancel?: () => void } = {}): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else if (opts.close !== false) controller.close();
      else return new Promise<void>(() => undefined); // stays open, as a live connection would
      return undefined;
    },
    cancel() {
      opts.onCancel?.();
    },
  });
}

export async function* iterate<T>(chunks: readonly T[]): AsyncGenerator<T> {
  for (const c of chunks) yield c;
}

/** Replaces every line end of an LF transcript. */
export function withEol(sse: string, eol: '\r' | '\n' | '\r\n'): string {
  return sse.replace(/\r?\n/g, eol);
}

/** Rebuilds a transcript from payloads (event: + data: framing, LF). */
export function frame(payloads: ReadonlyArray<Record<string, unknown>>, withEvent = true): string {
  return payloads.map((p) => `${withEvent ? `event: ${String(p['type'])}\n` : ''}data: ${JSON.stringify(p)}\n\n`).join('');
}

/** What a run ends with, comparable across runs (errors by class and message). */
export function summary(o: Outcome<unknown>) {
  const e = o.error as Error | undefined;
  return { values: o.values, completed: o.completed, error: e && { name: e.name, message: e.message } };
}

/** How a property test feeds a cut body: a ReadableStream, an iterable of byte chunks, or one of text. */
export type Feed = 'stream' | 'bytes-iterable' | 'string-iterable';
export function chunkedSource(bytes: Uint8Array, cuts: readonly number[], feed: Feed): StreamSource {
  const chunks = cutAt(bytes, cuts);
  if (feed === 'stream') return readable(chunks);
  if (feed === 'bytes-iterable') return iterate(chunks);
  // Strings can only be cut between characters: decode each chunk with a streaming decoder.
  const d = new TextDecoder();
  return iterate(chunks.map((c, i) => d.decode(c, { stream: i < chunks.length - 1 })).filter((s) => s.length > 0));
}
