// Reading a gateway's recorded-response stream with the protocol's own client (@durable-streams/client), and with
// openai-rx's fromDurableStream, for the durable-stream specs: every batch (items, offset, flags) until the stream says it is closed, or until `stopAt`
// items were delivered (then the reader's offset is where to resume).
import { stream, type JsonBatch, type LiveMode } from '@durable-streams/client';
import type { Subscription } from 'rxjs';
import { fromDurableStream, type DurableStreamMessages } from '../../lib/durable-streams/from-durable-stream';

export type Item = Record<string, unknown>;

export interface ReadResult {
  readonly items: Item[];
  readonly batches: Array<JsonBatch<Item>>;
  /** Where to resume: the offset after the last item delivered. */
  readonly offset: string;
  readonly closed: boolean;
}

export interface ReadOptions {
  readonly offset?: string;
  readonly live: LiveMode;
  readonly key: string;
  /** Stop (cancel the session) once this many items were delivered. */
  readonly stopAt?: number;
  /** Called with each batch as it is delivered. */
  readonly onBatch?: (batch: JsonBatch<Item>) => void;
}

/** The recorded response's stream URL on a gateway whose SDK base URL is `baseURL` (`…/v1`). */
export const streamUrl = (baseURL: string, id: string): string => `${baseURL}/stream/responses/${encodeURIComponent(id)}`;

/** Reads `url` with the protocol's client until closed (or `stopAt` items, or up to date with `live: false`). */
export async function readStream(url: string, o: ReadOptions): Promise<ReadResult> {
  const items: Item[] = [];
  const batches: Array<JsonBatch<Item>> = [];
  const session = await stream<Item>({
    url, offset: o.offset ?? '-1', live: o.live, headers: { Authorization: `Bearer ${o.key}` }, warnOnHttp: false,
    // A test's reader never falls back from SSE by itself: what it reads is what it asked for.
    sseResilience: { logWarnings: false, maxShortConnections: 1_000_000 },
  });
  let offset = o.offset ?? '-1';
  let closed = false;
  await new Promise<void>((resolve, reject) => {
    session.subscribeJson<Item>((b) => {
      batches.push(b);
      items.push(...b.items);
      offset = b.offset;
      o.onBatch?.(b);
      if (b.streamClosed) {
        closed = true;
        resolve();
      } else if ((o.stopAt !== undefined && items.length >= o.stopAt) || (o.live === false && b.upToDate)) resolve();
    });
    // The session may say it closed before its last batch reached the subscriber: that batch settles it first.
    session.closed.then(() => setTimeout(resolve, 50), reject);
  });
  session.cancel();
  await session.closed.catch(() => undefined);
  return { items, batches, offset, closed };
}

/**
 * The same with openai-rx's own `fromDurableStream`: its batches until it completes (the stream closed, or caught
 * up with `live: false`), or until `stopAt` messages (then unsubscribed: the request aborted).
 */
export async function readWithRx(url: string, o: ReadOptions): Promise<ReadResult & { rxBatches: Array<DurableStreamMessages<Item>> }> {
  const items: Item[] = [];
  const rxBatches: Array<DurableStreamMessages<Item>> = [];
  let offset = o.offset ?? '-1';
  let completed = false;
  const live = o.live === true ? 'long-poll' : o.live;
  await new Promise<void>((resolve, reject) => {
    const sub: Subscription = fromDurableStream<Item>(url, { offset, live, headers: { authorization: `Bearer ${o.key}` } }).subscribe({
      next: (b) => {
        if (!('messages' in b)) return reject(new Error('expected a JSON-mode stream'));
        rxBatches.push(b);
        items.push(...b.messages);
        offset = b.offset;
        if (b.messages.length > 0) o.onBatch?.({ items: b.messages, offset: b.offset, upToDate: false, streamClosed: false });
        if (o.stopAt !== undefined && items.length >= o.stopAt) {
          queueMicrotask(() => sub.unsubscribe());
          resolve();
        }
      },
      error: reject,
      complete: () => {
        completed = true;
        resolve();
      },
    });
  });
  // `closed`: completed in a live mode (a closed stream's end); with `live: false` a completion says only "caught up".
  return { items, batches: [], rxBatches, offset, closed: completed && live !== false };
}
