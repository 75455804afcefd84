// Every default the README states, read from README.md and checked against what the code does: the limits
// table, the resumeFrom table, the transports' config. A change on either side (the code's default or the
// README's figure) fails here. The WebSocket figures (maxSendBuffer, heartbeat, close timeout, laneMux limits)
// are checked here against the numbers test/promises/websocket.spec.ts proves on a socket.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { concat, lastValueFrom, of, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { DEFAULT_MAX_EVENT_SIZE, DEFAULT_MAX_LINE_LENGTH } from '../../lib/codecs';
import { DEFAULT_BASE_URL } from '../../lib/http/config';
import {
  exponentialBackoff, fromResponsesSSE, HTTPError, IdleTimeoutError, LimitExceededError,
  NetworkError, resumeFrom, streamResponse, StreamInterruptedError, type ResponseStreamEvent,
} from '../../index.js';
import { assertMarbles } from '../helpers/marbles';

// The README and the guides it links to (docs/*.md: the limits in guarantees.md, resumeFrom's table in resume.md, …).
const ROOT = join(__dirname, '..', '..');
const README = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => join('docs', f))]
  .map((f) => readFileSync(join(ROOT, f), 'utf8'))
  .join('\n');
/** The capture groups of a README (or guide) pattern (fails when the docs no longer say it). */
function says(pattern: RegExp): string[] {
  const m = pattern.exec(README);
  if (!m) throw new Error(`README.md and docs/*.md no longer match ${pattern}`);
  return m.slice(1);
}
const num = (pattern: RegExp): number => Number(says(pattern)[0]);
const Mi = 1024 * 1024;

// The figures the WebSocket spec proves against a socket (test/promises/websocket.spec.ts).
const PROVEN_BY_WEBSOCKET_SPEC = { maxSendBuffer: 1024, heartbeatMs: 30_000, closeTimeoutMs: 2_000, maxInFlight: 16, maxLanes: 32 };

describe('the README limits table', () => {
  test('maxLineLength: 128 Mi characters, the constant and the decoder (a comment line one past it fails as it arrives)', async () => {
    const readme = num(/`maxLineLength`[^|]*\|\s*(\d+) Mi characters/) * Mi;
    expect(DEFAULT_MAX_LINE_LENGTH).toBe(readme);
    // Comment lines count against maxLineLength but are never buffered, so this costs no memory to check.
    const CHUNK = Mi;
    const chunk = new TextEncoder().encode('x'.repeat(CHUNK));
    let fed = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (fed === 0) {
          fed += 1;
          return c.enqueue(new TextEncoder().encode(':'));
        }
        if (fed > readme + 4 * CHUNK) return c.close();
        fed += CHUNK;
        c.enqueue(chunk);
      },
    });
    const err = await lastValueFrom(fromResponsesSSE(body)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LimitExceededError);
    expect(err).toMatchObject({ limit: 'maxLineLength', max: readme });
    expect(fed).toBeLessThanOrEqual(readme + 3 * CHUNK);
  }, 60_000);

  test('maxEventSize: 128 Mi characters', () => {
    expect(DEFAULT_MAX_EVENT_SIZE).toBe(num(/`maxEventSize`[^|]*\|\s*(\d+) Mi characters/) * Mi);
  });

  test('idleTimeoutMs: off (a body that never sends a byte is waited for, however long)', async () => {
    expect(says(/\| `idleTimeoutMs`[^|]*\|\s*(\w+)\s*\|/)[0]).toBe('off');
    jest.useFakeTimers();
    try {
      const silent = () => Promise.resolve(new Response(new ReadableStream<Uint8Array>({ pull: () => new Promise<void>(() => undefined) }), { headers: { 'content-type': 'text/event-stream' } }));
      const seen: unknown[] = [];
      const sub = streamResponse({ model: 'm', input: 'x' }, { apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', fetch: silent as typeof fetch }).subscribe({ error: (e: unknown) => seen.push(e) });
      await jest.advanceTimersByTimeAsync(3_600_000);
      expect(seen).toEqual([]);
      sub.unsubscribe();
      // The same wait with idleTimeoutMs set does end (so the clock above really ran).
      const timed: unknown[] = [];
      const sub2 = streamResponse({ model: 'm', input: 'x' }, { apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', fetch: silent as typeof fetch, idleTimeoutMs: 1000 }).subscribe({ error: (e: unknown) => timed.push(e) });
      await jest.advanceTimersByTimeAsync(1000);
      expect(timed).toEqual([expect.any(IdleTimeoutError)]);
      sub2.unsubscribe();
    } finally {
      jest.useRealTimers();
    }
  });

  test('HTTP error body read: 64 KiB (a 4 MiB error body is not read past it)', async () => {
    const limit = num(/HTTP error body[^|]*\|\s*(\d+) KiB/) * 1024;
    const CHUNK = 4096;
    let pulled = 0;
    const huge = () =>
      Promise.resolve(
        new Response(
          new ReadableStream<Uint8Array>({
            pull(c) {
              if (pulled >= 4 * Mi) return c.close();
              pulled += CHUNK;
              c.enqueue(new TextEncoder().encode((pulled === CHUNK ? '{"error":{"message":"' : '').padEnd(CHUNK, 'e')));
            },
          }),
          { status: 500, headers: { 'content-type': 'application/json' } },
        ),
      );
    const err = await lastValueFrom(streamResponse({ model: 'm', input: 'x' }, { apiKey: 'k', baseURL: 'http://127.0.0.1:9/v1', fetch: huge as typeof fetch })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HTTPError);
    expect((err as HTTPError).status).toBe(500);
    // The pull source may run a chunk or two ahead of the reader.
    expect(pulled).toBeLessThanOrEqual(limit + 3 * CHUNK);
  });

  test('WebSocket maxSendBuffer: 1024', () => {
    expect(num(/WebSocket `maxSendBuffer`[^|]*\|\s*(\d+)\s*\|/)).toBe(PROVEN_BY_WEBSOCKET_SPEC.maxSendBuffer);
  });

  test('WebSocket heartbeat / close handshake: 30 s / 2 s', () => {
    const [heartbeat, close] = says(/WebSocket heartbeat \/ close handshake\s*\|\s*(\d+) s \/ (\d+) s/).map(Number);
    expect({ heartbeatMs: heartbeat! * 1000, closeTimeoutMs: close! * 1000 }).toEqual({
      heartbeatMs: PROVEN_BY_WEBSOCKET_SPEC.heartbeatMs, closeTimeoutMs: PROVEN_BY_WEBSOCKET_SPEC.closeTimeoutMs,
    });
  });

  test('in flight per socket / laneMux maxLanes: 16 / 32 (the table and the WebSocket section agree)', () => {
    const [inFlight, lanes] = says(/responses in flight per socket[^|]*\/ `laneMux` `maxLanes`\s*\|\s*(\d+) \/ (\d+)/).map(Number);
    expect({ maxInFlight: inFlight, maxLanes: lanes }).toEqual({ maxInFlight: PROVEN_BY_WEBSOCKET_SPEC.maxInFlight, maxLanes: PROVEN_BY_WEBSOCKET_SPEC.maxLanes });
    const [inFlight2, lanes2] = says(/at most (\d+) in flight, (\d+) lanes/).map(Number);
    expect([inFlight2, lanes2]).toEqual([inFlight, lanes]);
  });
});

describe('resumeFrom defaults (the limits table and the options table)', () => {
  const [attempts, first, max, jitter] = says(/`resumeFrom` `maxAttempts`, `delayMs`\s*\|\s*(\d+) without progress; ([\d.]+) s doubling to (\d+) s, ±(\d+) %/).map(Number) as [number, number, number, number];

  test('the two tables agree', () => {
    expect(num(/\| `maxAttempts` \| `(\d+)`/)).toBe(attempts);
    const delays = says(/\| `delayMs` \| `exponentialBackoff\(\)`: ([\d.]+) s, ([\d.]+) s, ([\d.]+) s, ([\d.]+) s, ([\d.]+) s, ±(\d+) % jitter/).map(Number);
    expect(delays).toEqual([first, first * 2, first * 4, first * 8, max, jitter]);
  });

  test('exponentialBackoff(): 0.5 s doubling to 8 s, ±20 %, whatever the random draw', () => {
    const nominal = (attempt: number) => Math.min(max * 1000, first * 1000 * 2 ** (attempt - 1));
    for (const r of [0, 0.25, 0.5, 0.75, 0.999999]) {
      const spy = jest.spyOn(Math, 'random').mockReturnValue(r);
      try {
        const delay = exponentialBackoff();
        for (let attempt = 1; attempt <= 8; attempt++) {
          const ms = delay(attempt, new StreamInterruptedError('resp_1', 0));
          expect(ms).toBeGreaterThanOrEqual(Math.floor(nominal(attempt) * (1 - jitter / 100)));
          expect(ms).toBeLessThanOrEqual(Math.ceil(nominal(attempt) * (1 + jitter / 100)));
        }
      } finally {
        spy.mockRestore();
      }
    }
    // Without jitter's luck (r = 0.5), exactly the README's sequence.
    const spy = jest.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      const delay = exponentialBackoff();
      expect([1, 2, 3, 4, 5, 6].map((a) => delay(a, undefined))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    } finally {
      spy.mockRestore();
    }
  });

  test('a longer Retry-After is honoured up to 60 s', () => {
    const ceiling = num(/a longer `Retry-After` is honoured \(up to (\d+) s\)/) * 1000;
    const delay = exponentialBackoff();
    const asked = (ms: number) => new HTTPError(429, 'rate_limit_exceeded', 'slow down', null, null, null, ms);
    expect(delay(1, asked(30_000))).toBe(30_000);
    expect(delay(1, asked(10 * ceiling))).toBe(ceiling);
  });

  test('resumeFrom() with no options: 5 reconnects in a row without a new event, at the default delays, then the last error', () => {
    const spy = jest.spyOn(Math, 'random').mockReturnValue(0.5);
    try {
      new TestScheduler(assertMarbles).run(({ cold, expectObservable, flush }) => {
        const created = { type: 'response.created', response: { id: 'resp_1' }, sequence_number: 0 } as unknown as ResponseStreamEvent;
        const net = new NetworkError('socket hang up');
        let reconnects = 0;
        const out = cold<ResponseStreamEvent>('a#', { a: created }, new StreamInterruptedError('resp_1', 0)).pipe(resumeFrom(() => (reconnects++, cold<ResponseStreamEvent>('#', {}, net))));
        const total = [1, 2, 3, 4, 5].reduce((t, a) => t + Math.min(max * 1000, first * 1000 * 2 ** (a - 1)), 0);
        expectObservable(out).toBe(`a ${total}ms #`, { a: created }, net);
        flush();
        expect(reconnects).toBe(attempts);
      });
    } finally {
      spy.mockRestore();
    }
  });

  test('progress resets the count: a new event earns maxAttempts more', () => {
    new TestScheduler(assertMarbles).run(({ cold, expectObservable, flush }) => {
      const ev = (n: number) => ({ type: 'response.in_progress', response: { id: 'resp_1' }, sequence_number: n }) as unknown as ResponseStreamEvent;
      const net = new NetworkError('reset');
      let calls = 0;
      // Every reconnect brings one new event, then drops: more than 5 reconnects in all, never 5 in a row.
      const reconnect = () => {
        calls++;
        return calls <= 8 ? cold<ResponseStreamEvent>('a#', { a: ev(calls) }, net) : cold<ResponseStreamEvent>('a|', { a: ev(calls) });
      };
      const out = concat(of(ev(0)), cold<ResponseStreamEvent>('#', {}, new StreamInterruptedError('resp_1', 0))).pipe(resumeFrom(reconnect, { delayMs: 1 }), toArray());
      expectObservable(out.pipe()).toBe('18ms (x|)', { x: Array.from({ length: 10 }, (_, i) => ev(i)) });
      flush();
      expect(calls).toBe(9);
    });
  });
});

describe('the transports config', () => {
  test('baseURL: https://api.openai.com/v1 unless OPENAI_BASE_URL says otherwise', () => {
    expect(says(/`baseURL` \(default `OPENAI_BASE_URL`, else\s+`([^`]+)`\)/)[0]).toBe(DEFAULT_BASE_URL);
    expect(DEFAULT_BASE_URL).toBe('https://api.openai.com/v1');
  });

  test("validate: 'strict' by default (a wrongly typed documented event is a DecodeError; with 'off' it passes)", async () => {
    expect(README).toMatch(/`validate: 'strict'` \(default\)/);
    const bad = `data: ${JSON.stringify({ type: 'response.output_text.delta', item_id: 'm', output_index: 0, content_index: 0, delta: 5, logprobs: [], sequence_number: 0 })}\n\n`;
    const err = await lastValueFrom(fromResponsesSSE(bad).pipe(toArray())).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'DecodeError', path: expect.stringContaining('delta') });
    const off = await lastValueFrom(fromResponsesSSE(bad, { validate: 'off' }).pipe(toArray())).catch((e: unknown) => e);
    expect(off).toBeInstanceOf(StreamInterruptedError); // decoded, then cut: no terminal event
  });
});

