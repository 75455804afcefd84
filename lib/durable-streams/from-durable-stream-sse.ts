import type { Subscriber } from 'rxjs';
import { concatBytes } from '../bytes.js';
import { DecodeError, DurableStreamError, NetworkError } from '../errors.js';
import { SSEScannerCore, type SSEMessageSink } from '../sse/scanner.js';
import { Utf8 } from '../sse/source.js';
import { END, messagesOf, PROGRESS, type Batch, type ExchangeContext, type ReadState, type Step } from './from-durable-stream-steps.js';

// One SSE connection of a live read (section 5.8): `data` events are held until the `control` event after them,
// which says where they end; only then does the batch go out, with that offset. A connection that breaks between a
// data event and its control loses nothing: the next one starts from the last control's offset.

interface Control {
  readonly streamNextOffset: string;
  readonly streamCursor?: string;
  readonly streamClosed: boolean;
}

function controlOf(ctx: ExchangeContext, data: string): Control {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    throw new DurableStreamError(200, ctx.shownUrl, 'an SSE control event that is not JSON', undefined, 'protocol_error');
  }
  const c = (typeof v === 'object' && v !== null ? v : {}) as Record<string, unknown>;
  const next = c['streamNextOffset'];
  if (typeof next !== 'string' || next === '') throw new DurableStreamError(200, ctx.shownUrl, 'an SSE control event without streamNextOffset', undefined, 'protocol_error');
  const cursor = c['streamCursor'];
  return { streamNextOffset: next, ...(typeof cursor === 'string' && cursor !== '' ? { streamCursor: cursor } : {}), streamClosed: c['streamClosed'] === true };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** One `data` event of a base64 stream: its lines joined without their line ends (section 5.8). */
function base64Bytes(data: string): Uint8Array {
  const text = data.replace(/[\r\n]/g, '');
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new DecodeError(`invalid base64 (${text.length} characters) in an SSE data event`);
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}


class ControlSink implements SSEMessageSink {
  private pending: string[] = [];
  /** A control event arrived on this connection. */
  controls = 0;
  ended = false;
  private readonly encoder = new TextEncoder();

  constructor(
    private readonly ctx: ExchangeContext,
    private readonly state: ReadState,
    private readonly base64: boolean,
    private readonly subscriber: Subscriber<Step>,
  ) {}

  onMessage(event: string | undefined, data: string, unterminated: boolean): void {
    // An event the body ended inside may be cut short: what it held comes again on the next connection.
    if (unterminated || this.ended) return;
    if (event === 'data') this.pending.push(data);
    else if (event === 'control') this.control(controlOf(this.ctx, data));
  }

  private batch(offset: string): Batch | undefined {
    const pending = this.pending;
    this.pending = [];
    if (pending.length === 0) return undefined;
    if (this.state.json) {
      const messages = pending.flatMap(messagesOf);
      return messages.length > 0 ? { offset, messages } : undefined;
    }
    const bytes = concatBytes(pending.map((d) => (this.base64 ? base64Bytes(d) : this.encoder.encode(d))));
    return bytes.byteLength > 0 ? { offset, bytes } : undefined;
  }

  private control(c: Control): void {
    const batch = this.batch(c.streamNextOffset);
    this.controls++;
    const state = this.state;
    state.offset = c.streamNextOffset;
    if (c.streamCursor !== undefined) state.cursor = c.streamCursor;
    this.subscriber.next(batch ?? PROGRESS);
    if (c.streamClosed) {
      this.ended = true;
      this.subscriber.next(END);
    }
  }
}

/**
 * Reads one SSE connection to its end. The connection closing on an open stream (servers do every ~60 s) completes
 * the exchange, and the reader opens the next one; closing before any control event is a failure to retry.
 */
export async function readSSE(
  ctx: ExchangeContext,
  state: ReadState,
  res: Response,
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
  subscriber: Subscriber<Step>,
): Promise<void> {
  const type = res.headers.get('content-type');
  if (res.status !== 200 || type === null || type.split(';')[0]!.trim().toLowerCase() !== 'text/event-stream')
    throw new DurableStreamError(res.status, ctx.shownUrl, `a live=sse answer that is not text/event-stream`, undefined, 'protocol_error');
  const base64 = res.headers.get('stream-sse-data-encoding')?.trim().toLowerCase() === 'base64';
  const sink = new ControlSink(ctx, state, base64, subscriber);
  const scanner = new SSEScannerCore(sink);
  const text = new Utf8();
  if (reader !== undefined) {
    for (;;) {
      const r = await reader.read();
      if (subscriber.closed || sink.ended) return;
      if (r.done) break;
      scanner.feed(text.text(r.value));
      if (subscriber.closed || sink.ended) return;
    }
    text.flush();
    scanner.end();
  }
  if (sink.controls === 0) throw new NetworkError(`the SSE connection to ${ctx.shownUrl} ended before any control event`);
}
