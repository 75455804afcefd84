// Live reads over a loopback socket: long-poll (wake, 204 with cursor, closed tail at once) and SSE (framing,
// base64, the end after a closed stream's last control, the end after sseMaxDurationMs); a client that goes away
// ends the wait (the store's waiter released), so nothing is left behind.
import { request } from 'node:http';
import { createDurableStreamsHandler } from '../../lib/durable-streams/index';
import { readUntil, serve, type Served } from './handler-helpers';
import { testStore } from './handler-test-store';

let store: ReturnType<typeof testStore>;
let s: Served;
beforeEach(async () => {
  store = testStore();
  s = await serve(createDurableStreamsHandler({ store, longPollTimeoutMs: 300, sseMaxDurationMs: 400 }));
});
afterEach(() => s.close());

const P = '/v1/stream/live';
const text = { 'Content-Type': 'text/plain' };
const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
};

describe('long-poll', () => {
  test('data at the offset: 200 at once with a cursor', async () => {
    await s.send('PUT', P, text, 'a');
    const r = await s.send('GET', `${P}?offset=-1&live=long-poll`);
    expect([r.status, r.text, r.headers['stream-up-to-date']]).toEqual([200, 'a', 'true']);
    expect(r.headers['stream-cursor']).toMatch(/^\d+$/);
    const again = await s.send('GET', `${P}?offset=-1&live=long-poll&cursor=${r.headers['stream-cursor']}`);
    expect(Number(again.headers['stream-cursor'])).toBeGreaterThan(Number(r.headers['stream-cursor']));
  });
  test('at the tail: waits, then answers with the append', async () => {
    await s.send('PUT', P, text, 'a');
    const pending = s.send('GET', `${P}?offset=0000000000000001&live=long-poll`);
    await until(() => store.waiting() === 1);
    await s.send('POST', P, text, 'b');
    const r = await pending;
    expect([r.status, r.text, r.headers['stream-next-offset']]).toEqual([200, 'b', '0000000000000002']);
  });
  test('offset=now waits even when the stream has data; 204 on timeout with tail, Up-To-Date and cursor', async () => {
    await s.send('PUT', P, text, 'a');
    const r = await s.send('GET', `${P}?offset=now&live=long-poll`);
    expect([r.status, r.headers['stream-next-offset'], r.headers['stream-up-to-date'], r.headers['stream-closed']]).toEqual([204, '0000000000000001', 'true', undefined]);
    expect(r.headers['stream-cursor']).toMatch(/^\d+$/);
  });
  test('a closed stream at the tail: 204 with Stream-Closed at once; the close wakes a waiter', async () => {
    await s.send('PUT', P, text, 'a');
    const pending = s.send('GET', `${P}?offset=0000000000000001&live=long-poll`);
    await until(() => store.waiting() === 1);
    await s.send('POST', P, { 'Stream-Closed': 'true' });
    const woke = await pending;
    expect([woke.status, woke.headers['stream-closed'], woke.headers['stream-up-to-date'], woke.headers['stream-cursor']]).toEqual([204, 'true', 'true', undefined]);
    const started = Date.now();
    expect((await s.send('GET', `${P}?offset=now&live=long-poll`)).headers['stream-closed']).toBe('true');
    expect(Date.now() - started).toBeLessThan(250);
  });
});

describe('long-poll cancellation', () => {
  test('a disconnect aborts the store wait at once', async () => {
    await s.send('PUT', P, text);
    const req = request(`${s.url}${P}?offset=-1&live=long-poll`, { agent: false });
    req.on('error', () => undefined);
    req.end();
    await until(() => store.waiting() === 1);
    expect(store.waiting()).toBe(1);
    req.destroy();
    await until(() => store.waiting() === 0);
    expect(store.waiting()).toBe(0);
  });
});

describe('SSE', () => {
  test('text: catch-up data then control; live appends each as data + control', async () => {
    await s.send('PUT', P, text, 'line1\nline2');
    const res = await s.open(`${P}?offset=-1&live=sse`);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['cache-control']).toContain('no-cache');
    expect(res.headers['content-length']).toBeUndefined();
    expect(res.headers['stream-sse-data-encoding']).toBeUndefined();
    const first = await readUntil(res, '"upToDate":true');
    expect(first).toMatch(/^event: data\ndata:line1\ndata:line2\n\nevent: control\ndata:\{"streamNextOffset":"0000000000000001","streamCursor":"\d+","upToDate":true\}\n\n$/);
    const next = readUntil(res, '0000000000000002');
    await s.send('POST', P, text, 'b');
    expect(await next).toContain('event: data\ndata:b\n\nevent: control');
    res.destroy();
  });
  test('binary: base64 with the encoding header; JSON: arrays', async () => {
    await s.send('PUT', P, { 'Content-Type': 'application/octet-stream' }, new Uint8Array([0, 255, 10, 13]));
    const bin = await s.open(`${P}?offset=-1&live=sse`);
    expect(bin.headers['stream-sse-data-encoding']).toBe('base64');
    expect(await readUntil(bin, 'upToDate')).toContain('event: data\ndata:AP8KDQ==\n\n');
    bin.destroy();
    await s.send('PUT', '/v1/stream/j', { 'Content-Type': 'application/json' }, '[{"a":1},{"b":"x\\ny"}]');
    const js = await s.open('/v1/stream/j?offset=-1&live=sse');
    expect(await readUntil(js, 'upToDate')).toContain('event: data\ndata:[\ndata:{"a":1},\ndata:{"b":"x\\ny"}\ndata:]\n\n');
    js.destroy();
  });
  test('a closed stream: the last control says streamClosed (no cursor) and the response ends', async () => {
    await s.send('PUT', P, text, 'a');
    const res = await s.open(`${P}?offset=-1&live=sse`);
    const got = readUntil(res);
    await readUntil(res, 'upToDate');
    await s.send('POST', P, { ...text, 'Stream-Closed': 'true' }, 'z');
    const rest = await got;
    expect(rest).toContain('event: data\ndata:z\n\nevent: control\ndata:{"streamNextOffset":"0000000000000002","upToDate":true,"streamClosed":true}\n\n');
    expect(res.complete).toBe(true);
  });
  test('ended after sseMaxDurationMs; a disconnect releases the wait', async () => {
    await s.send('PUT', P, text);
    const started = Date.now();
    const res = await s.open(`${P}?offset=-1&live=sse`);
    await readUntil(res);
    expect(res.complete).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
    const other = await s.open(`${P}?offset=-1&live=sse`);
    await until(() => store.waiting() === 1);
    other.destroy();
    await until(() => store.waiting() === 0);
    expect(store.waiting()).toBe(0);
  });
});

describe('SSE to a client that reads nothing', () => {
  test('the response is let go at sseMaxDurationMs, the server no longer waiting for it to drain', async () => {
    const handler = createDurableStreamsHandler({ store, sseMaxDurationMs: 400 });
    let served: Promise<number> | undefined;
    const slow = await serve((req, res) => {
      if (req.url?.includes('live=sse') === true) served = new Promise((resolve) => res.once('close', () => resolve(Date.now())));
      handler(req, res);
    });
    try {
      const chunk = new Uint8Array(1024 * 1024).fill(7);
      await slow.send('PUT', P, { 'Content-Type': 'application/octet-stream' });
      for (let i = 0; i < 24; i++) await slow.send('POST', P, { 'Content-Type': 'application/octet-stream' }, chunk);
      const started = Date.now();
      const res = await slow.open(`${P}?offset=-1&live=sse`);
      res.pause();
      const closedAt = await served!;
      expect(closedAt - started).toBeLessThan(3000);
      expect(store.waiting()).toBe(0);
    } finally {
      await slow.close();
    }
  });
});

describe('on the memory event log', () => {
  // Waits of a minute, abandoned: no timer of theirs may outlive the abort (it would hold the process a minute).
  // Node >= 17.3 (the package needs 20); @types/node here predates its declaration.
  const active = (process as unknown as { getActiveResourcesInfo(): string[] }).getActiveResourcesInfo;
  const timers = (): number => active().filter((r) => r === 'Timeout').length;
  test('a long-poll and an SSE response whose clients go away leave no timer running', async () => {
    const { memoryEventLog } = await import('../../lib/log/memory');
    const onLog = await serve(createDurableStreamsHandler({ log: memoryEventLog(), longPollTimeoutMs: 60_000, sseMaxDurationMs: 60_000 }));
    try {
      await onLog.send('PUT', P, text, 'a');
      const before = timers();
      const poll = request(`${onLog.url}${P}?offset=0000000000000001&live=long-poll`, { agent: false });
      poll.on('error', () => undefined);
      poll.end();
      const sse = await onLog.open(`${P}?offset=-1&live=sse`);
      await readUntil(sse, 'upToDate');
      await until(() => timers() >= before + 2);
      expect(timers()).toBeGreaterThanOrEqual(before + 2);
      poll.destroy();
      sse.destroy();
      await until(() => timers() <= before);
      expect(timers()).toBeLessThanOrEqual(before);
      // Still served after the abandoned waits: an append and a read.
      expect((await onLog.send('POST', P, text, 'b')).status).toBe(204);
      expect((await onLog.send('GET', `${P}?offset=-1`)).text).toBe('ab');
    } finally {
      await onLog.close();
    }
  });
});
