// createDurableStreamsHandler over a loopback socket: create, append, read, HEAD, DELETE and the headers every
// response carries, each protocol rule the handler owns (the store's rules are its own tests').
import { request } from 'node:http';
import { createDurableStreamsHandler, serveDurableStream } from '../../lib/durable-streams/index';
import type { DurableStreamStore } from '../../lib/durable-streams/store';
import { serve, type Served } from './handler-helpers';
import { testStore } from './handler-test-store';

let store: ReturnType<typeof testStore>;
let s: Served;
beforeEach(async () => {
  store = testStore();
  s = await serve(createDurableStreamsHandler({ store, maxAppendBytes: 1024, maxReadBytes: 8 }));
});
afterEach(() => s.close());

const P = '/v1/stream/a';
const text = { 'Content-Type': 'text/plain' };
const json = { 'Content-Type': 'application/json' };

describe('PUT', () => {
  test('201 with Location, content type and tail; 200 when the same again; 409 when not', async () => {
    const r = await s.send('PUT', P, text, 'hi');
    expect(r.status).toBe(201);
    expect(r.headers['location']).toBe(`${s.url}${P}`);
    expect(r.headers['content-type']).toBe('text/plain');
    expect(r.headers['stream-next-offset']).toBe('0000000000000001');
    expect((await s.send('PUT', P, text)).status).toBe(200);
    expect((await s.send('PUT', P, json)).status).toBe(409);
  });
  test('content type defaults to application/octet-stream', async () => {
    const r = await s.send('PUT', P);
    expect(r.status).toBe(201);
    expect(r.headers['content-type']).toBe('application/octet-stream');
  });
  test('TTL and Expires-At: each checked, both together 400', async () => {
    expect((await s.send('PUT', P, { 'Stream-TTL': '03600' })).status).toBe(400);
    expect((await s.send('PUT', P, { 'Stream-Expires-At': 'soon' })).status).toBe(400);
    expect((await s.send('PUT', P, { 'Stream-TTL': '60', 'Stream-Expires-At': '2030-01-01T00:00:00Z' })).status).toBe(400);
    const r = await s.send('PUT', P, { 'Stream-TTL': '60' });
    expect(r.status).toBe(201);
    const head = await s.send('HEAD', P);
    expect(head.headers['stream-ttl']).toBe('60');
  });
  test('Stream-Closed: true creates closed; other values are ignored', async () => {
    const r = await s.send('PUT', P, { ...text, 'Stream-Closed': 'TRUE' }, 'all');
    expect(r.headers['stream-closed']).toBe('true');
    const open = await s.send('PUT', '/v1/stream/b', { ...text, 'Stream-Closed': 'yes' });
    expect(open.status).toBe(201);
    expect(open.headers['stream-closed']).toBeUndefined();
  });
  test('fork headers without Stream-Forked-From, or a bad sub-offset: 400', async () => {
    expect((await s.send('PUT', P, { 'Stream-Fork-Offset': '0000000000000000' })).status).toBe(400);
    expect((await s.send('PUT', P, { 'Stream-Fork-Sub-Offset': '0' })).status).toBe(400);
    expect((await s.send('PUT', P, { 'Stream-Forked-From': '/v1/stream/x', 'Stream-Fork-Sub-Offset': '-1' })).status).toBe(400);
    expect((await s.send('PUT', P, { 'Stream-Forked-From': '/v1/stream/x', 'Stream-Fork-Sub-Offset': '2' })).status).toBe(400);
  });
  test('a JSON body `[]` creates an empty stream', async () => {
    expect((await s.send('PUT', P, json, '[]')).headers['stream-next-offset']).toBe('0000000000000000');
  });
});

describe('POST', () => {
  beforeEach(async () => {
    await s.send('PUT', P, text);
    await s.send('PUT', '/v1/stream/j', json);
  });
  test('204 with the new tail; empty body without close 400; missing Content-Type 400', async () => {
    const r = await s.send('POST', P, text, 'x');
    expect(r.status).toBe(204);
    expect(r.headers['stream-next-offset']).toBe('0000000000000001');
    expect((await s.send('POST', P, text, '')).status).toBe(400);
    expect((await s.send('POST', P, {}, 'x')).status).toBe(400);
  });
  test('JSON: flattened one level, `[]` and invalid JSON 400', async () => {
    expect((await s.send('POST', '/v1/stream/j', json, '[1,[2,3],{"a":4}]')).headers['stream-next-offset']).toBe('0000000000000003');
    expect((await s.send('POST', '/v1/stream/j', json, '[]')).status).toBe(400);
    expect((await s.send('POST', '/v1/stream/j', json, '{"a":')).status).toBe(400);
    // maxReadBytes is 8 here: two batches, each an array.
    const r = await s.send('GET', '/v1/stream/j?offset=-1');
    expect(JSON.parse(r.text)).toEqual([1, [2, 3]]);
    const rest = await s.send('GET', `/v1/stream/j?offset=${r.headers['stream-next-offset']}`);
    expect(JSON.parse(rest.text)).toEqual([{ a: 4 }]);
  });
  test('close-only ignores Content-Type; appending to a closed stream is 409 with Stream-Closed and the tail', async () => {
    await s.send('POST', P, text, 'x');
    const close = await s.send('POST', P, { 'Content-Type': 'application/json', 'Stream-Closed': 'true' });
    expect(close.status).toBe(204);
    expect(close.headers['stream-closed']).toBe('true');
    const late = await s.send('POST', P, text, 'y');
    expect(late.status).toBe(409);
    expect(late.headers['stream-closed']).toBe('true');
    expect(late.headers['stream-next-offset']).toBe('0000000000000001');
  });
  test('producer headers: all or none (400), 200 with the echo, 204 for a duplicate, 403 with the epoch, 409 with the seqs', async () => {
    const prod = (epoch: string, seq: string) => ({ ...text, 'Producer-Id': 'p', 'Producer-Epoch': epoch, 'Producer-Seq': seq });
    expect((await s.send('POST', P, { ...text, 'Producer-Id': 'p' }, 'x')).status).toBe(400);
    const first = await s.send('POST', P, prod('1', '0'), 'x');
    expect(first.status).toBe(200);
    expect([first.headers['producer-epoch'], first.headers['producer-seq']]).toEqual(['1', '0']);
    expect((await s.send('POST', P, prod('1', '0'), 'x')).status).toBe(204);
    const stale = await s.send('POST', P, prod('0', '0'), 'x');
    expect(stale.status).toBe(403);
    expect(stale.headers['producer-epoch']).toBe('1');
    const closeOnly = await s.send('POST', P, { ...prod('1', '1'), 'Stream-Closed': 'true' });
    expect([closeOnly.status, closeOnly.headers['producer-seq'], closeOnly.headers['stream-closed']]).toEqual([204, '1', 'true']);
    expect((await s.send('POST', P, { ...prod('1', '1'), 'Stream-Closed': 'true' })).status).toBe(204);
    await s.send('PUT', '/v1/stream/g', text);
    const gap = await s.send('POST', '/v1/stream/g', { ...prod('1', '0'), 'Content-Type': 'text/plain' }, 'x').then(() => s.send('POST', '/v1/stream/g', prod('1', '5'), 'x'));
    expect(gap.status).toBe(409);
    expect([gap.headers['producer-expected-seq'], gap.headers['producer-received-seq']]).toEqual(['1', '5']);
  });
  test('Stream-Seq regression 409; content type mismatch 409; unknown stream 404', async () => {
    expect((await s.send('POST', P, { ...text, 'Stream-Seq': '2' }, 'x')).status).toBe(204);
    expect((await s.send('POST', P, { ...text, 'Stream-Seq': '10' }, 'x')).status).toBe(409);
    expect((await s.send('POST', P, json, '1')).status).toBe(409);
    expect((await s.send('POST', '/v1/stream/none', text, 'x')).status).toBe(404);
  });
  test('a body declared far over maxAppendBytes is refused at once, the connection closed, before it is sent', async () => {
    const status = await new Promise<[number | undefined, string | undefined]>((resolve, reject) => {
      const req = request(`${s.url}${P}`, { method: 'POST', agent: false, headers: { ...text, 'Content-Length': String(100 * 1024 * 1024) } }, (res) => {
        resolve([res.statusCode, res.headers['connection']]);
        res.resume();
        req.destroy();
      });
      req.on('error', reject);
      req.write('x'.repeat(10));
    });
    expect(status).toEqual([413, 'close']);
  });
  test('a body over maxAppendBytes is 413 (and nothing is stored)', async () => {
    const r = await s.send('POST', P, text, 'x'.repeat(4096));
    expect(r.status).toBe(413);
    expect((await s.send('HEAD', P)).headers['stream-next-offset']).toBe('0000000000000000');
  });
});

describe('GET (catch-up)', () => {
  beforeEach(async () => {
    await s.send('PUT', P, text, 'abc');
    await s.send('POST', P, text, 'defgh');
    await s.send('POST', P, text, 'ijklmnop');
  });
  test('the bytes in batches of maxReadBytes; Up-To-Date only on the last', async () => {
    const first = await s.send('GET', P);
    expect(first.text).toBe('abcdefgh');
    expect(first.headers['stream-up-to-date']).toBeUndefined();
    const rest = await s.send('GET', `${P}?offset=${first.headers['stream-next-offset']}`);
    expect(rest.text).toBe('ijklmnop');
    expect(rest.headers['stream-up-to-date']).toBe('true');
    const tail = await s.send('GET', `${P}?offset=${rest.headers['stream-next-offset']}`);
    expect([tail.status, tail.text, tail.headers['stream-up-to-date'], tail.headers['stream-closed']]).toEqual([200, '', 'true', undefined]);
  });
  test('ETag {id}:{start}:{end}, :c once closed; If-None-Match 304', async () => {
    const r = await s.send('GET', `${P}?offset=0000000000000002`);
    const etag = r.headers['etag']!;
    expect(etag).toMatch(/^"s\d+:0000000000000002:0000000000000003"$/);
    expect((await s.send('GET', `${P}?offset=0000000000000002`, { 'If-None-Match': etag })).status).toBe(304);
    await s.send('POST', P, { 'Stream-Closed': 'true' });
    const closed = await s.send('GET', `${P}?offset=0000000000000002`, { 'If-None-Match': etag });
    expect(closed.status).toBe(200);
    expect(closed.headers['etag']).toBe(etag.replace(/"$/, ':c"'));
    expect(closed.headers['stream-closed']).toBe('true');
  });
  test('offset=now: empty, the tail, no ETag, no-store; `[]` for JSON', async () => {
    const r = await s.send('GET', `${P}?offset=now`);
    expect([r.status, r.text, r.headers['stream-next-offset'], r.headers['stream-up-to-date'], r.headers['etag'], r.headers['cache-control']])
      .toEqual([200, '', '0000000000000003', 'true', undefined, 'no-store']);
    await s.send('PUT', '/v1/stream/j', json, '[1,2]');
    expect((await s.send('GET', '/v1/stream/j?offset=now')).text).toBe('[]');
  });
  test('malformed offsets 400; unknown streams 404 (with the security headers)', async () => {
    for (const q of ['offset=', 'offset=a&offset=b', 'offset=1,2', 'offset=zzz']) expect((await s.send('GET', `${P}?${q}`)).status).toBe(400);
    const missing = await s.send('GET', '/v1/stream/none');
    expect(missing.status).toBe(404);
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
    expect(missing.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });
});

describe('HEAD, DELETE, CORS, routing, failures', () => {
  test('HEAD: metadata, no body, no-store', async () => {
    await s.send('PUT', P, { ...text, 'Stream-Closed': 'true' }, 'x');
    const r = await s.send('HEAD', P);
    expect([r.status, r.text, r.headers['cache-control'], r.headers['stream-closed'], r.headers['stream-next-offset']]).toEqual([200, '', 'no-store', 'true', '0000000000000001']);
    expect((await s.send('HEAD', '/v1/stream/none')).status).toBe(404);
  });
  test('DELETE 204 then 404', async () => {
    await s.send('PUT', P);
    expect((await s.send('DELETE', P)).status).toBe(204);
    expect((await s.send('DELETE', P)).status).toBe(404);
  });
  test('CORS: a preflight allows If-None-Match and the protocol headers; responses expose Stream-*', async () => {
    const pre = await s.send('OPTIONS', P, { Origin: 'https://example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'if-none-match, producer-id' });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-headers']).toMatch(/If-None-Match/);
    expect(pre.headers['access-control-allow-headers']).toMatch(/Producer-Id/);
    expect(pre.headers['access-control-allow-methods']).toMatch(/POST/);
    const r = await s.send('PUT', P);
    expect(r.headers['access-control-allow-origin']).toBe('*');
    expect(r.headers['access-control-expose-headers']).toMatch(/Stream-Next-Offset.*Stream-Closed/);
  });
  test('outside the prefix: 404, or `next` when given', async () => {
    expect((await s.send('GET', '/elsewhere')).status).toBe(404);
    expect((await s.send('GET', '/v1/stream/')).status).toBe(404);
    await s.close();
    s = await serve(createDurableStreamsHandler({ store, prefix: '/s/', next: (_req, res) => res.writeHead(418).end() }));
    expect((await s.send('GET', '/v1/stream/a')).status).toBe(418);
    expect((await s.send('PUT', '/s/a')).status).toBe(201);
  });
  test('a store that fails: 503 without its details', async () => {
    await s.send('PUT', P);
    store.failing = true;
    const r = await s.send('GET', P);
    expect(r.status).toBe(503);
    expect(r.text).not.toMatch(/secret/);
  });
  test('serveDurableStream on a read-only store: reads served, writes 405 with Allow', async () => {
    await s.send('PUT', P, text, 'kept');
    const readOnly: DurableStreamStore = { info: store.info, read: store.read, wait: store.wait };
    await s.close();
    s = await serve((req, res) => void serveDurableStream(req, res, { store: readOnly, path: P }));
    expect((await s.send('GET', '/anything')).text).toBe('kept');
    for (const method of ['PUT', 'POST', 'DELETE']) {
      const r = await s.send(method, '/anything', text, 'x');
      expect(r.status).toBe(405);
      expect(r.headers['allow']).toBe('GET, HEAD, OPTIONS');
    }
  });
});
