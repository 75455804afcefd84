// Any bytes at all into the SSE decoders, whole or in arbitrary chunks: events, completion or one typed
// error; never an untyped exception, a hang or a polluted prototype. Then the limits: invalid UTF-8, an
// overlong line, an oversized event and a body without newlines end in a typed error with bounded buffering.
import fc from 'fast-check';
import type { Observable } from 'rxjs';
import { fromChatCompletionsSSE, fromResponsesSSE } from '../../index.js';
import { DecodeError, LimitExceededError } from '../../lib/errors';
import { accumulateResponse, collectToolCalls, toChatChunks } from '../../operators';
import { PROTO_KEYS, assertNoPollution, assertTypedOutcome, params, runAsync, runSync } from './harness';
import { FIXTURE_CHUNKS, FIXTURE_EVENTS } from './adversarial';

const enc = new TextEncoder();
const validUtf8 = (b: Uint8Array): boolean => {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(b);
    return true;
  } catch {
    return false;
  }
};

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      const next = chunks[i++];
      if (next === undefined) c.close();
      else c.enqueue(next);
    },
  });
}

function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    out.push(bytes.subarray(prev, c));
    prev = c;
  }
  return out;
}

/** SSE-looking text: fields, comments, line endings, JSON fragments, real events and prototype payloads. */
const sseLike = fc
  .array(
    fc.oneof(
      fc.constantFrom('event: ', 'data: ', 'data:', ': comment', 'id: 1', 'retry: x', '\n', '\r\n', '\r', '\n\n', '[DONE]', '{', '}', '"', '\ufeff', '\u2028'),
      fc.constantFrom(...FIXTURE_EVENTS), // every event of every transcript, not a sample
      fc.constantFrom(...FIXTURE_CHUNKS).map((c) => `data: ${c}\n\n`),
      fc.constantFrom(...PROTO_KEYS).map((k) => `data: {"type":"response.output_text.delta","${k}":{"polluted":"yes"},"item_id":"x","output_index":0,"content_index":0,"delta":"a","logprobs":[]}\n\n`),
      fc.string({ maxLength: 8 }),
      fc.constantFrom('response.created', 'response.completed', 'error', 'response.failed'),
    ),
    { maxLength: 30 },
  )
  .map((xs) => xs.join(''));

const bytesArb = fc.oneof(fc.uint8Array({ maxLength: 300 }), sseLike.map((s) => enc.encode(s)), fc.tuple(sseLike, fc.uint8Array({ maxLength: 8 }), fc.nat()).map(([s, junk, at]) => {
  const b = enc.encode(s);
  const k = at % (b.length + 1);
  const out = new Uint8Array(b.length + junk.length);
  out.set(b.subarray(0, k));
  out.set(junk, k);
  out.set(b.subarray(k), k + junk.length);
  return out;
}));

describe('any bytes into the decoders', () => {
  test('fromResponsesSSE / fromChatCompletionsSSE over a whole buffer (strict and off, then operators)', () => {
    fc.assert(
      fc.property(bytesArb, (bytes) => {
        const decoders: Array<Observable<unknown>> = [
          fromResponsesSSE(bytes),
          fromResponsesSSE(bytes, { validate: 'off', sequence: 'strict' }),
          fromResponsesSSE(bytes, { validate: 'off', errorEvents: 'value' }),
          fromChatCompletionsSSE(bytes),
          fromChatCompletionsSSE(bytes, { validate: 'off', requireDone: false }),
          fromResponsesSSE(bytes, { maxLineLength: 64, maxEventSize: 128 }),
        ];
        for (const o of decoders) {
          assertTypedOutcome(runSync(o), 'decoder');
          assertNoPollution();
        }
        // Strictly validated events through the operators.
        for (const op of [accumulateResponse(), collectToolCalls({ partial: true, hosted: true, incomplete: true }), toChatChunks()]) {
          assertTypedOutcome(runSync(fromResponsesSSE(bytes).pipe(op as never)), 'decoder → operator');
          assertNoPollution();
        }
      }),
      params(400),
    );
  });

  test('the same bytes in arbitrary chunks through a ReadableStream', async () => {
    await fc.assert(
      fc.asyncProperty(bytesArb, fc.array(fc.nat(), { maxLength: 12 }), async (bytes, cuts) => {
        const whole = runSync(fromResponsesSSE(bytes));
        const chunked = await runAsync(fromResponsesSSE(streamOf(split(bytes, cuts))));
        assertTypedOutcome(chunked, 'chunked decoder');
        assertNoPollution();
        if (validUtf8(bytes)) {
          // Chunking changes nothing: same events, same ending.
          expect(chunked.values).toEqual(whole.values);
          expect(chunked.kind).toBe(whole.kind);
          if (chunked.kind === 'error' && whole.kind === 'error') expect((chunked.error as Error).name).toBe((whole.error as Error).name);
        } else {
          // A buffer is checked as a whole; a stream chunk by chunk, so events before the bad chunk get out.
          expect(chunked.kind).toBe('error');
          expect(chunked.values.slice(0, whole.values.length)).toEqual(whole.values);
        }
        const chat = await runAsync(fromChatCompletionsSSE(streamOf(split(bytes, cuts))));
        assertTypedOutcome(chat, 'chunked chat decoder');
      }),
      params(200),
    );
  });
});

describe('limits', () => {
  const LIMIT = 64 * 1024;

  test('invalid UTF-8 is a DecodeError, wherever it falls', () => {
    fc.assert(
      fc.property(fc.constantFrom(...FIXTURE_EVENTS), fc.nat(), fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80]), (json, at, bad) => {
        const b = enc.encode(`data: ${json}\n\n`);
        const k = 6 + (at % (b.length - 8));
        const out = new Uint8Array([...b.subarray(0, k), ...bad, ...b.subarray(k)]);
        const o = runSync(fromResponsesSSE(out));
        expect(o.kind).toBe('error');
        if (o.kind === 'error') expect(o.error).toBeInstanceOf(DecodeError);
      }),
      params(100),
    );
  });

  /**
   * Feeds 10× the limit in 4 KiB chunks and records how many characters were handed to the decoder before
   * it errored: the error must fire once the limit is passed, not after the whole body was buffered.
   */
  async function fedUntilError(body: (i: number) => string, opts: { maxLineLength?: number; maxEventSize?: number }) {
    const CHUNK = 4096;
    const total = 10 * LIMIT;
    let fed = 0;
    let i = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (fed >= total) return c.close();
        const s = body(i++).slice(0, CHUNK);
        fed += s.length;
        c.enqueue(enc.encode(s));
      },
    });
    const o = await runAsync(fromResponsesSSE(stream, opts));
    return { o, fed };
  }

  test('a body that never sends a newline: LimitExceededError(maxLineLength) before limit + one chunk is read', async () => {
    const { o, fed } = await fedUntilError((i) => (i === 0 ? 'data: ' : '').padEnd(4096, 'x'), { maxLineLength: LIMIT });
    expect(o.kind).toBe('error');
    if (o.kind === 'error') {
      expect(o.error).toBeInstanceOf(LimitExceededError);
      expect((o.error as LimitExceededError).limit).toBe('maxLineLength');
    }
    // The pull source may run a chunk or two ahead of the decoder.
    expect(fed).toBeLessThanOrEqual(LIMIT + 3 * 4096);
  });

  test('an event of many short data lines larger than maxEventSize: LimitExceededError(maxEventSize) early', async () => {
    const line = 'data: ' + 'y'.repeat(100) + '\n';
    const { o, fed } = await fedUntilError(() => line.repeat(Math.ceil(4096 / line.length)), { maxEventSize: LIMIT });
    expect(o.kind).toBe('error');
    if (o.kind === 'error') {
      expect(o.error).toBeInstanceOf(LimitExceededError);
      expect((o.error as LimitExceededError).limit).toBe('maxEventSize');
    }
    expect(fed).toBeLessThanOrEqual(LIMIT + 3 * 4096);
  });

  test('memory stays bounded by the limit: 10× the limit of one endless line grows the heap by a small multiple of it', async () => {
    const big = 4 * 1024 * 1024; // 4 Mi characters limit, 40 Mi fed
    const CHUNK = 256 * 1024;
    const chunk = enc.encode('x'.repeat(CHUNK));
    let fed = 0;
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        peak = Math.max(peak, process.memoryUsage().heapUsed);
        if (fed >= 10 * big) return c.close();
        fed += CHUNK;
        c.enqueue(fed === CHUNK ? enc.encode('data: ') : chunk);
      },
    });
    const o = await runAsync(fromResponsesSSE(stream, { maxLineLength: big, maxEventSize: 10 * big }));
    expect(o.kind).toBe('error');
    if (o.kind === 'error') expect(o.error).toBeInstanceOf(LimitExceededError);
    expect(fed).toBeLessThan(10 * big);
    // Strings are 1-2 bytes a character; the parser may hold the line plus a copy while it joins chunks.
    expect(peak - before).toBeLessThan(8 * 2 * big);
  });
});
