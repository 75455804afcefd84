import { take } from 'rxjs';
import { AbortedError, DurableStreamError } from '../../lib/errors';
import { fromDurableStream, type DurableStreamBatch } from '../../lib/durable-streams/from-durable-stream';
import {
  append as appendAt,
  bytesIn,
  closeStream as closeAt,
  collect,
  createStream as createAt,
  cuttingProxy,
  delay,
  deleteStream as deleteAt,
  first,
  freshUrl,
  messagesIn,
  tailOffset,
  until,
  type StreamServer,
} from './from-durable-stream-helpers';

const JSON_TYPE = 'application/json';
const BIN = 'application/octet-stream';

/** What a server under test does that not every server does. */
export interface ServerTraits {
  /** Its catch-up answers stop at a byte budget small enough that the streams here take several requests. */
  readonly chunked?: boolean;
  /** It closes SSE connections of open streams after this many ms (servers do every ~60 s). */
  readonly sseClosesAfterMs?: number;
}

/** A fetch that counts the requests of each kind (catch-up, long-poll, sse). */
export function countingFetch() {
  const counts = { catchUp: 0, longPoll: 0, sse: 0 };
  const f = ((input: string, init?: RequestInit) => {
    const live = new URL(input).searchParams.get('live');
    if (live === 'sse') counts.sse++;
    else if (live === 'long-poll') counts.longPoll++;
    else counts.catchUp++;
    return fetch(input, init);
  }) as typeof fetch;
  return { fetch: f, counts };
}

/** The behaviours of `fromDurableStream` every server must give, run against the server `start` makes. */
export function describeFromDurableStream(start: () => Promise<StreamServer>, traits: ServerTraits = {}): void {
  let server: StreamServer;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(async () => {
    await server?.stop();
  });
  // Writes go to the server's other instance when it has one: what is read was written elsewhere.
  const w = (url: string): string => (server.writeOrigin === undefined ? url : url.replace(new URL(url).origin, server.writeOrigin));
  const append = (url: string, ...rest: Parameters<typeof appendAt> extends [string, ...infer R] ? R : never) => appendAt(w(url), ...rest);
  const createStream = (url: string, contentType: string, body?: string | Uint8Array) => createAt(w(url), contentType, body);
  const closeStream = (url: string) => closeAt(w(url));
  const deleteStream = (url: string) => deleteAt(w(url));
  // Subscriptions a failed test would leave open.
  const afterThis: Array<() => void> = [];
  afterEach(() => {
    for (const f of afterThis.splice(0)) f();
  });

  async function jsonStream(batches: unknown[][], close = false): Promise<string> {
    const url = freshUrl(server.base, 'json');
    await createStream(url, JSON_TYPE);
    for (const b of batches) await append(url, JSON_TYPE, JSON.stringify(b));
    if (close) await closeStream(url);
    return url;
  }

  describe('catch-up', () => {
    test('a JSON-mode stream: its messages in order, the last offset the tail, then completes (live: false)', async () => {
      const url = await jsonStream([[{ n: 1 }, { n: 2 }], [{ n: 3 }], [[4, 4]], ['five']]);
      const out = await collect(fromDurableStream(url, { live: false }));
      expect(messagesIn(out)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, [4, 4], 'five']);
      expect(out.every((b) => 'messages' in b && b.messages.length > 0)).toBe(true);
      expect(out[out.length - 1]!.offset).toBe(await tailOffset(url));
    });

    test('a byte stream: its bytes as appended', async () => {
      const url = freshUrl(server.base, 'bin');
      await createStream(url, BIN);
      const parts = [Uint8Array.from([0, 1, 2, 255]), Uint8Array.from([10, 13, 0]), new TextEncoder().encode('tail ✓')];
      for (const p of parts) await append(url, BIN, p);
      const out = await collect(fromDurableStream(url, { live: false }));
      expect(out.every((b) => 'bytes' in b)).toBe(true);
      expect(Buffer.from(bytesIn(out))).toEqual(Buffer.concat(parts));
    });

    test('resuming from every offset it emitted reads exactly the rest', async () => {
      const url = await jsonStream([[1], [2, 3], [4], [5, 6, 7]], true);
      // Live, so the batches come one long-poll each, not in one catch-up answer.
      const reader = collect(fromDurableStream(url, { live: false }));
      const all = messagesIn(await reader);
      const pieces: DurableStreamBatch[] = [];
      // Read batch by batch: each read starts where the last batch said.
      let offset = '-1';
      for (;;) {
        const next = await collect(fromDurableStream(url, { offset, live: false }).pipe(take(1)));
        if (next.length === 0) break;
        pieces.push(next[0]!);
        offset = next[0]!.offset;
      }
      expect(messagesIn(pieces)).toEqual(all);
      for (const [i, p] of pieces.entries()) {
        const rest = messagesIn(await collect(fromDurableStream(url, { offset: p.offset, live: false })));
        expect(rest).toEqual(messagesIn(pieces.slice(i + 1)));
      }
    });

    test('offset now: nothing of what is there, then what comes', async () => {
      const url = await jsonStream([['old']]);
      const got = first(fromDurableStream(url, { offset: 'now', live: 'long-poll' }));
      await delay(100);
      await append(url, JSON_TYPE, JSON.stringify(['new']));
      expect((await got) as unknown).toMatchObject({ messages: ['new'] });
    });
  });

  describe.each(['long-poll', 'sse'] as const)('live %s', (live) => {
    test('JSON: catch-up, appends during the read, completes at close', async () => {
      const url = await jsonStream([['a']]);
      const reading = collect(fromDurableStream(url, { live }));
      await delay(50);
      await append(url, JSON_TYPE, JSON.stringify(['b', 'c']));
      await delay(30);
      await append(url, JSON_TYPE, JSON.stringify([{ d: 1 }]));
      await append(url, JSON_TYPE, JSON.stringify(['e']), true);
      const out = await reading;
      expect(messagesIn(out)).toEqual(['a', 'b', 'c', { d: 1 }, 'e']);
      expect(out[out.length - 1]!.offset).toBe(await tailOffset(url));
    });

    test('bytes (base64 over SSE): appends during the read, completes at close', async () => {
      const url = freshUrl(server.base, 'bin');
      await createStream(url, BIN);
      await append(url, BIN, Uint8Array.from([1, 2, 3]));
      const reading = collect(fromDurableStream(url, { live }));
      await delay(50);
      const more = [Uint8Array.from([0, 255, 10, 13]), Uint8Array.from(Array.from({ length: 300 }, (_, i) => i % 256))];
      for (const m of more) await append(url, BIN, m);
      await closeStream(url);
      expect(Buffer.from(bytesIn(await reading))).toEqual(Buffer.concat([Uint8Array.from([1, 2, 3]), ...more]));
    });

    test('text: appends during the read', async () => {
      const url = freshUrl(server.base, 'text');
      await createStream(url, 'text/plain');
      const reading = collect(fromDurableStream(url, { live }));
      await delay(50);
      await append(url, 'text/plain', 'héllo ');
      await append(url, 'text/plain', 'wörld', true);
      expect(new TextDecoder().decode(bytesIn(await reading))).toBe('héllo wörld');
    });

    test('a quiet stream: the server timing out its wait (a 204, a keep-alive control, a closed connection) changes nothing', async () => {
      const url = await jsonStream([['first']]);
      const c = countingFetch();
      const got: DurableStreamBatch[] = [];
      let done = false;
      const sub = fromDurableStream(url, { live, fetch: c.fetch }).subscribe({ next: (b) => got.push(b), error: () => undefined, complete: () => (done = true) });
      afterThis.push(() => sub.unsubscribe());
      await until(() => got.length === 1);
      // Past the servers' waits here (1 s): a long-poll answers 204 and is sent again; SSE sends a keep-alive control or closes.
      await delay(1300);
      expect(got).toHaveLength(1);
      await append(url, JSON_TYPE, JSON.stringify(['second']), true);
      await until(() => done);
      expect(messagesIn(got)).toEqual(['first', 'second']);
      if (live === 'long-poll') expect(c.counts.longPoll).toBeGreaterThanOrEqual(2);
    });

    test('a closed stream completes once read, without a live request', async () => {
      const url = await jsonStream([[1, 2]], true);
      const c = countingFetch();
      expect(messagesIn(await collect(fromDurableStream(url, { live, fetch: c.fetch })))).toEqual([1, 2]);
      expect(c.counts).toEqual({ catchUp: 1, longPoll: 0, sse: 0 });
    });

    test('unsubscribing aborts the held request: the server sees the connection closed', async () => {
      const url = await jsonStream([['x']]);
      const proxy = await cuttingProxy(server.base);
      try {
        const path = new URL(url).pathname;
        const got: DurableStreamBatch[] = [];
        const c = countingFetch();
        const sub = fromDurableStream(`${proxy.url}${path}`, { live, fetch: c.fetch }).subscribe({ next: (b) => got.push(b), error: () => undefined });
        try {
          await until(() => got.length === 1 && c.counts.longPoll + c.counts.sse === 1);
          // The live request is held now, on a connection of its own or on the catch-up's.
          await until(() => proxy.openRequests().some((r) => r.includes(`live=${live}`)));
          sub.unsubscribe();
          await until(() => !proxy.openRequests().some((r) => r.includes('live=')), 2000);
        } finally {
          sub.unsubscribe();
        }
      } finally {
        await proxy.stop();
      }
    });

    test('a connection cut mid-read resumes from the last offset: nothing lost, nothing twice', async () => {
      const url = await jsonStream([['a']]);
      const proxy = await cuttingProxy(server.base);
      try {
        const path = new URL(url).pathname;
        const got: DurableStreamBatch[] = [];
        let done = false;
        const sub = fromDurableStream(`${proxy.url}${path}`, { live, retry: { delayMs: 10 } }).subscribe({ next: (b) => got.push(b), error: () => undefined, complete: () => (done = true) });
        afterThis.push(() => sub.unsubscribe());
        await until(() => got.length === 1);
        await append(url, JSON_TYPE, JSON.stringify(['b']));
        await until(() => messagesIn(got).length === 2);
        proxy.cut();
        await append(url, JSON_TYPE, JSON.stringify(['c']));
        proxy.cut();
        await delay(50);
        await append(url, JSON_TYPE, JSON.stringify(['d']), true);
        await until(() => done);
        expect(messagesIn(got)).toEqual(['a', 'b', 'c', 'd']);
        expect(proxy.accepted()).toBeGreaterThan(2);
      } finally {
        await proxy.stop();
      }
    });
  });

  test('a catch-up answer cut short is read again from the same offset', async () => {
    const url = await jsonStream([Array.from({ length: 200 }, (_, i) => ({ i, pad: 'x'.repeat(40) }))], true);
    const proxy = await cuttingProxy(server.base);
    try {
      proxy.cutAfter(600);
      const out = await collect(fromDurableStream(`${proxy.url}${new URL(url).pathname}`, { live: false, retry: { delayMs: 5 } }));
      expect(messagesIn(out)).toHaveLength(200);
      expect(proxy.accepted()).toBeGreaterThanOrEqual(2); // the cut answer's connection, then the retry's
    } finally {
      await proxy.stop();
    }
  });

  (traits.chunked ? describe : describe.skip)('catch-up longer than one chunk', () => {
    test('JSON: several catch-up requests, each batch resumable', async () => {
      const url = await jsonStream(Array.from({ length: 12 }, (_, i) => [{ i, pad: 'p'.repeat(30) }]));
      const c = countingFetch();
      const out = await collect(fromDurableStream(url, { live: false, fetch: c.fetch }));
      expect(messagesIn(out)).toEqual(Array.from({ length: 12 }, (_, i) => ({ i, pad: 'p'.repeat(30) })));
      expect(out.length).toBeGreaterThan(2);
      expect(c.counts.catchUp).toBeGreaterThan(2);
      for (const [i, b] of out.entries()) expect(messagesIn(await collect(fromDurableStream(url, { offset: b.offset, live: false })))).toEqual(messagesIn(out.slice(i + 1)));
    });

    test('bytes: several catch-up requests, the bytes whole', async () => {
      const url = freshUrl(server.base, 'bin');
      await createStream(url, BIN);
      const parts = Array.from({ length: 10 }, (_, i) => Uint8Array.from({ length: 50 }, (_, j) => (i * 50 + j) % 256));
      for (const p of parts) await append(url, BIN, p);
      const c = countingFetch();
      const out = await collect(fromDurableStream(url, { live: 'long-poll', fetch: c.fetch }).pipe(take(3)));
      expect(c.counts.catchUp).toBeGreaterThanOrEqual(3);
      const rest = await collect(fromDurableStream(url, { offset: out[2]!.offset, live: false }));
      expect(Buffer.from(bytesIn([...out, ...rest]))).toEqual(Buffer.concat(parts));
    });
  });

  (traits.sseClosesAfterMs !== undefined ? describe : describe.skip)('SSE connections the server closes', () => {
    test('the reader reconnects from the last control: everything once, in order', async () => {
      const url = await jsonStream([[0]]);
      const c = countingFetch();
      const reading = collect(fromDurableStream(url, { live: 'sse', fetch: c.fetch }));
      const every = traits.sseClosesAfterMs ?? 0;
      for (let i = 1; i <= 6; i++) {
        await delay(every / 2);
        await append(url, JSON_TYPE, JSON.stringify([i]));
      }
      await delay(every);
      await closeStream(url);
      expect(messagesIn(await reading)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(c.counts.sse).toBeGreaterThanOrEqual(3);
    });
  });

  describe('typed errors', () => {
    test('404: not_found, not retried, no query and no header value in it', async () => {
      const url = `${freshUrl(server.base, 'missing')}?token=sk-query-secret-123456`;
      let calls = 0;
      const counting = ((input: string, init?: RequestInit) => {
        calls++;
        return fetch(input, init);
      }) as typeof fetch;
      const e = await first(fromDurableStream(url, { headers: { authorization: 'Bearer sk-header-secret-abcdef' }, fetch: counting })).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(DurableStreamError);
      expect(e).toMatchObject({ code: 'not_found', status: 404, retryable: false });
      expect((e as DurableStreamError).url).toBe(url.split('?')[0]);
      expect(JSON.stringify(e) + String((e as Error).message)).not.toMatch(/secret/);
      expect(calls).toBe(1);
    });

    test('410: gone, a stream deleted while a fork still reads it', async () => {
      const url = await jsonStream([[1]]);
      const fork = freshUrl(server.base, 'fork');
      const res = await fetch(w(fork), { method: 'PUT', headers: { 'stream-forked-from': new URL(url).pathname } });
      expect(res.status).toBe(201);
      await deleteStream(url);
      await expect(first(fromDurableStream(url))).rejects.toMatchObject({ name: 'DurableStreamError', code: 'gone', status: 410 });
      // The fork still reads what it inherited.
      expect(messagesIn(await collect(fromDurableStream(fork, { live: false })))).toEqual([1]);
    });

    test('400 for an offset the server never minted: bad_request', async () => {
      const url = await jsonStream([[1]]);
      await expect(first(fromDurableStream(url, { offset: 'not-an-offset' }))).rejects.toMatchObject({ code: 'bad_request', status: 400 });
    });

    test('the caller signal aborts with AbortedError', async () => {
      const url = await jsonStream([[1]]);
      const ac = new AbortController();
      const got: unknown[] = [];
      const failed = new Promise<unknown>((resolve) => fromDurableStream(url, { live: 'long-poll', signal: ac.signal }).subscribe({ next: (b) => got.push(b), error: resolve }));
      await until(() => got.length === 1);
      ac.abort();
      expect(await failed).toBeInstanceOf(AbortedError);
    });
  });
}
