// The gateway's read-only Durable Stream of a recorded response (`GET|HEAD /v1/stream/responses/{id}`), in one
// process on the memory log, read with the protocol's own client: catch-up from every offset, live SSE and long-poll
// readers that see the events as they are recorded and complete at the terminal event, a cancelled response,
// another owner's 404, write methods' 405, normalised paths, and no key in any answer.
import OpenAI from 'openai';
import { ownerOf } from '../../gateway/index';
import { formatOffset } from '../../lib/durable-streams/offsets';
import { startHarness, words, type Harness } from './helpers';
import type { AccessLogEntry } from '../../gateway/index';
import { DurableStreamError, EventLogError } from '../../lib/errors';
import { memoryEventLog } from '../../lib/log/memory';
import type { EventLog } from '../../lib/log/types';
import { readStream, readWithRx, streamUrl, type Item } from './durable-stream-read';

jest.setTimeout(60_000);

const KEY = 'sk-test-dstream-0000-aaaa';
const OTHER = 'sk-test-dstream-1111-bbbb';

let h: Harness;
let slow: Harness;
beforeAll(async () => {
  // An unknown stream is waited for (as a resume waits: the recording of a create's first event may lag it) this long.
  h = await startHarness({ provider: { answer: words(30) }, gateway: { timeouts: { notFoundMs: 300 } } });
  // Long enough (about 2 s at 10 ms an event) that readers started at its first event see it being recorded.
  slow = await startHarness({ provider: { answer: words(200), eventDelayMs: 10 } });
});
afterAll(async () => {
  await h?.close();
  await slow?.close();
});

const sdk = (baseURL: string, key = KEY) => new OpenAI({ apiKey: key, baseURL, maxRetries: 0, timeout: 30_000 });

/** A response streamed through the gateway to its end: its id and the events the provider sent. */
async function recorded(harness: Harness): Promise<{ id: string; sent: ReadonlyArray<Record<string, unknown>> }> {
  let id = '';
  for await (const e of await sdk(harness.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true })) {
    id ||= (e as { response?: { id: string } }).response?.id ?? '';
  }
  return { id, sent: harness.provider.responses.get(id)!.events };
}

const get = (url: string, init: RequestInit = {}, key = KEY) =>
  fetch(url, { ...init, headers: { Authorization: `Bearer ${key}`, ...(init.headers as Record<string, string> | undefined) } });

describe('a recorded response as a Durable Stream', () => {
  test('HEAD: JSON mode, the tail after the last event, closed', async () => {
    const { id, sent } = await recorded(h);
    const res = await get(streamUrl(h.baseURL, id), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('stream-next-offset')).toBe(formatOffset(sent.length));
    expect(res.headers.get('stream-closed')).toBe('true');
    // The gateway's own policy: no CORS of its own, nothing cached.
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('catch-up with the protocol\'s client and fromDurableStream: every event once, in order, from every offset', async () => {
    const { id, sent } = await recorded(h);
    const url = streamUrl(h.baseURL, id);
    const all = await readStream(url, { live: false, key: KEY });
    expect(all.items).toEqual(sent);
    expect(all.offset).toBe(formatOffset(sent.length));
    for (let k = 0; k <= sent.length; k += 7) {
      const rest = await readStream(url, { offset: formatOffset(k), live: false, key: KEY });
      expect(rest.items).toEqual(sent.slice(k));
    }
    // openai-rx's fromDurableStream: the same, and resumed from every offset it emitted.
    const rx = await readWithRx(url, { live: false, key: KEY });
    expect(rx.items).toEqual(sent);
    for (const b of rx.rxBatches) {
      const rest = await readWithRx(url, { offset: b.offset, live: false, key: KEY });
      expect(rest.items).toEqual(sent.slice(Number(b.offset)));
    }
    for (const k of [0, 1, sent.length - 1, sent.length]) expect((await readWithRx(url, { offset: formatOffset(k), live: 'sse', key: KEY })).items).toEqual(sent.slice(k));
    // Raw: one JSON array of the events, the headers of a closed stream's end.
    const raw = await get(`${url}?offset=${formatOffset(sent.length - 2)}`);
    expect(raw.status).toBe(200);
    expect(await raw.json()).toEqual(sent.slice(-2));
    expect(raw.headers.get('stream-up-to-date')).toBe('true');
    expect(raw.headers.get('stream-closed')).toBe('true');
    expect(raw.headers.get('cache-control')).toBe('no-store');
  });

  test.each([
    ['the protocol\'s client', 'sse'], ['the protocol\'s client', 'long-poll'], ['fromDurableStream', 'sse'], ['fromDurableStream', 'long-poll'],
  ] as const)('%s, live %s: sees the events as they are recorded and completes at the terminal event', async (client, live) => {
    const created = await sdk(slow.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true });
    let id = '';
    let producerDone = false;
    const producing = (async () => {
      for await (const e of created) id ||= (e as { response?: { id: string } }).response?.id ?? '';
      producerDone = true;
    })();
    while (id === '') await new Promise((r) => setTimeout(r, 5));
    let whileRecording = 0;
    const url = streamUrl(slow.baseURL, id);
    const read = client === 'fromDurableStream'
      ? await readWithRx(url, { live, key: KEY, onBatch: () => void (!producerDone && whileRecording++) })
      : await readStream(url, { live, key: KEY, onBatch: (b) => void (b.items.length > 0 && !producerDone && whileRecording++) });
    await producing;
    const sent = slow.provider.responses.get(id)!.events;
    expect(read.closed).toBe(true);
    expect(read.items).toEqual(sent);
    expect((read.items[read.items.length - 1] as Item)['type']).toBe('response.completed');
    // Several batches reached the reader while the response was still being recorded.
    expect(whileRecording).toBeGreaterThan(1);
  });

  test('a cancelled response: its stream closes where it stopped', async () => {
    const created = await sdk(slow.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true });
    const got: Item[] = [];
    let reader: Promise<Awaited<ReturnType<typeof readStream>>> | undefined;
    for await (const e of created) {
      got.push(e as unknown as Item);
      if (got.length === 5) {
        const id = (got[0] as { response: { id: string } }).response.id;
        reader = readStream(streamUrl(slow.baseURL, id), { live: 'sse', key: KEY });
        await sdk(slow.baseURL).responses.cancel(id);
      }
    }
    const read = await reader!;
    expect(read.closed).toBe(true);
    // What was recorded before the cancel, each once (no response.cancelled: the log stores no such event).
    expect(read.items.length).toBeGreaterThanOrEqual(5);
    expect(read.items).toEqual(got.slice(0, read.items.length));
    expect(read.items.some((e) => e['type'] === 'response.completed' || e['type'] === 'response.cancelled')).toBe(false);
  });
});

describe('the route\'s rules', () => {
  test('another owner, an unknown id and an implausible one get the unknown id\'s 404, GET and HEAD alike', async () => {
    const { id } = await recorded(h);
    const cases: Array<[string, string]> = [[id, OTHER], ['resp_unknown', KEY], ['response:x..y', KEY]];
    for (const [rid, key] of cases) {
      const res = await get(streamUrl(h.baseURL, rid), {}, key);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { message: `No response found with id '${rid}'.`, type: 'invalid_request_error', param: 'response_id', code: null } });
      expect((await get(streamUrl(h.baseURL, rid), { method: 'HEAD' }, key)).status).toBe(404);
    }
    // Live modes too: never a wait on another owner's stream.
    expect((await get(`${streamUrl(h.baseURL, id)}?offset=-1&live=long-poll`, {}, OTHER)).status).toBe(404);
    expect((await get(`${streamUrl(h.baseURL, id)}?offset=-1&live=sse`, {}, OTHER)).status).toBe(404);
    // The protocol's client sees a 404 as well.
    await expect(readStream(streamUrl(h.baseURL, id), { live: false, key: OTHER })).rejects.toMatchObject({ status: 404 });
    // And fromDurableStream its typed error, with no key in it.
    const e = await readWithRx(streamUrl(h.baseURL, id), { live: 'sse', key: OTHER }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DurableStreamError);
    expect(e).toMatchObject({ status: 404, code: 'not_found' });
    expect(JSON.stringify({ ...(e as object), message: (e as Error).message })).not.toContain(OTHER);
  });

  test('a stream not in the log yet is waited for (timeouts.notFoundMs), then read', async () => {
    const { id, sent } = await recorded(h);
    const late = 'resp_dstream_late';
    const reading = readStream(streamUrl(h.baseURL, late), { live: 'sse', key: KEY });
    await new Promise((r) => setTimeout(r, 50));
    const scope = { responseId: late, owner: ownerOf(`Bearer ${KEY}`) };
    const { token } = await h.gateway.log.acquire(scope, 60_000);
    const events = await h.gateway.log.read({ responseId: id, owner: ownerOf(`Bearer ${KEY}`) }, undefined);
    await h.gateway.log.append(scope, token, events);
    expect((await reading).items).toEqual(sent);
  });

  test('no credentials: 401', async () => {
    const { id } = await recorded(h);
    expect((await fetch(streamUrl(h.baseURL, id))).status).toBe(401);
  });

  test.each(['PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS'])('%s is a 405 (Allow: GET, HEAD), whether the stream exists or not', async (method) => {
    const { id } = await recorded(h);
    for (const [rid, key] of [[id, KEY], [id, OTHER], ['resp_unknown', KEY]] as const) {
      const res = await get(streamUrl(h.baseURL, rid), { method, body: method === 'PUT' || method === 'POST' || method === 'PATCH' ? '[{"a":1}]' : undefined, headers: { 'content-type': 'application/json' } }, key);
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
      if (method !== 'OPTIONS') expect((await res.json()) as unknown).toMatchObject({ error: { code: 'method_not_allowed' } });
    }
    // Nothing was appended.
    const after = await readStream(streamUrl(h.baseURL, id), { live: false, key: KEY });
    expect(after.items.some((e) => 'a' in e)).toBe(false);
  });

  test('paths are normalised before they are checked', async () => {
    const { id, sent } = await recorded(h);
    const origin = h.origin;
    const ok = await get(`${origin}/v1//stream/./responses/${id}/?offset=-1`);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual(sent);
    expect((await get(`${origin}/v1/stream/x/../responses/${id}`)).status).toBe(200);
    for (const bad of [`/v1/stream/responses%2F${id}`, `/v1/stream/responses/${id}%2F..`, `/v1/stream/responses/%2E%2E`, `/v1/stream/responses/${id}/extra`, '/v1/stream/responses', `/v1/stream/${id}`]) {
      const res = await get(`${origin}${bad}`);
      expect(res.status).toBe(404);
    }
  });

  test('a malformed offset is a 400 that names no key', async () => {
    const { id } = await recorded(h);
    for (const offset of ['abc', formatOffset(10_000), '1']) {
      const res = await get(`${streamUrl(h.baseURL, id)}?offset=${offset}`);
      expect(res.status).toBe(400);
      expect(await res.text()).not.toContain(KEY);
    }
  });

  test('no key in any answer: the 404, 405 and 400 bodies and headers', async () => {
    const { id } = await recorded(h);
    const answers = [
      await get(streamUrl(h.baseURL, id), {}, OTHER),
      await get(streamUrl(h.baseURL, id), { method: 'POST', body: KEY }),
      await get(`${streamUrl(h.baseURL, id)}?offset=${KEY}`),
      await get(streamUrl(h.baseURL, KEY)),
    ];
    for (const res of answers) {
      const text = `${[...res.headers].join('\n')}\n${await res.text()}`;
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(OTHER);
    }
  });

  test('the access log names the route, never the path, query or key', async () => {
    const entries: AccessLogEntry[] = [];
    const local = await startHarness({ provider: { answer: words(5) }, gateway: { accessLog: (e) => void entries.push(e) } });
    try {
      const { id, sent } = await recorded(local);
      const res = await get(`${streamUrl(local.baseURL, id)}?offset=${formatOffset(1)}&live=long-poll&cursor=${KEY}`);
      expect(await res.json()).toEqual(sent.slice(1));
      await get(streamUrl(local.baseURL, id), { method: 'POST', body: KEY });
      await new Promise((r) => setTimeout(r, 50));
      const ours = entries.filter((e) => e.route?.includes('/v1/stream/'));
      expect(ours.map((e) => [e.method, e.route, e.status, e.responseId])).toEqual([
        ['GET', 'GET /v1/stream/responses/{response_id}', 200, id], ['POST', '* /v1/stream/responses/{response_id}', 405, id],
      ]);
      expect(JSON.stringify(entries)).not.toContain(KEY);
      expect(JSON.stringify(entries)).not.toContain('offset=');
    } finally {
      await local.close();
    }
  });

  test('a log that fails: the gateway\'s 503 log_unavailable before the stream starts, the handler\'s 503 without details during a read', async () => {
    const log = memoryEventLog();
    let fail: 'state' | 'read' | undefined;
    const down = () => Promise.reject(new EventLogError('unavailable', `redis://user:${KEY}@10.0.0.7:6379 ECONNREFUSED`));
    const failing: EventLog = {
      ...log,
      state: (s) => (fail === 'state' ? down() : log.state(s)),
      read: (s, a, l) => (fail === 'read' ? down() : log.read(s, a, l)),
    } as EventLog;
    const local = await startHarness({ provider: { answer: words(5) }, gateway: { log: failing } });
    try {
      const { id } = await recorded(local);
      fail = 'state';
      const before = await get(streamUrl(local.baseURL, id));
      expect(before.status).toBe(503);
      expect(await before.json()).toMatchObject({ error: { code: 'log_unavailable' } });
      fail = 'read';
      const during = await get(streamUrl(local.baseURL, id));
      expect(during.status).toBe(503);
      const text = await during.text();
      for (const secret of [KEY, 'redis', '10.0.0.7', 'ECONNREFUSED']) expect(text).not.toContain(secret);
    } finally {
      await local.close();
      await log.close();
    }
  });

  test('the gateway\'s close ends an open live reader', async () => {
    const local = await startHarness({ provider: { answer: words(5) } });
    try {
      // A registered background create: in the log, no events, open.
      const r = await sdk(local.baseURL).responses.create({ model: 'fake-model', input: 'Hi', background: true });
      const res = await get(`${streamUrl(local.baseURL, r.id)}?offset=-1&live=sse`);
      expect(res.status).toBe(200);
      const reading = res.text().catch(() => 'ended');
      expect(local.gateway.metrics().streams.clients).toBe(1);
      await local.gateway.close();
      await reading;
      expect(local.gateway.metrics().streams.clients).toBe(0);
    } finally {
      await local.close();
    }
  });
});
