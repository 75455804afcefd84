// The gateway's routes over real loopback sockets: resume by Last-Event-ID, cancel, auth isolation, and the
// OpenAI-style errors (400 malformed JSON, 401, 404, 413, 429, 502, 504) with the SDK's own error classes.
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE } from '../../lib/decode/responses-sse';
import { GatewayHttpError } from '../../gateway/index';
import { beforeCancel, closeServer, listen, seqs, startHarness, words, type Harness } from './helpers';

jest.setTimeout(60_000);

const KEY = 'sk-test-owner-aaaa-0000';
const OTHER = 'sk-test-owner-bbbb-1111';
const sdk = (baseURL: string, key = KEY) => new OpenAI({ apiKey: key, baseURL, maxRetries: 0, timeout: 30_000 });

const post = (h: Harness, path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${h.origin}${path}`, { method: 'POST', body, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers } });

/** The events of an SSE response body, decoded by the library. */
const eventsOf = async (res: Response) => lastValueFrom(fromResponsesSSE(res, { errorEvents: 'value' }).pipe(toArray())) as Promise<Array<Record<string, unknown>>>;

/** Reads a create stream until `n` events arrived, then leaves; returns them and the response id. */
async function firstEvents(h: Harness, n: number, body: Record<string, unknown> = {}): Promise<{ id: string; events: Array<Record<string, unknown>> }> {
  const stream = await sdk(h.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true, ...body } as never);
  const events: Array<Record<string, unknown>> = [];
  for await (const e of stream as unknown as AsyncIterable<unknown>) {
    events.push(e as Record<string, unknown>);
    if (events.length === n) break;
  }
  return { id: (events[0] as { response: { id: string } }).response.id, events };
}

describe('resume and cancel', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ provider: { answer: words(60), eventDelayMs: 10 }, gateway: { background: true } });
  });
  afterAll(() => h.close());

  it('a Last-Event-ID reconnect gets the events after it, each once; the SSE ids are the sequence numbers', async () => {
    const { id, events } = await firstEvents(h, 5);
    const res = await fetch(`${h.baseURL}/responses/${id}?stream=true`, { headers: { authorization: `Bearer ${KEY}`, 'last-event-id': '4' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const text = await res.text();
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    const rest = await eventsOf(new Response(text, { headers: { 'content-type': 'text/event-stream' } }));
    expect(ids).toEqual(seqs(rest));
    expect([...events, ...rest]).toEqual(h.provider.responses.get(id)!.events);
  });

  it('Last-Event-ID wins over the starting_after of the URL a browser reconnects to', async () => {
    const { id } = await firstEvents(h, 3);
    const res = await fetch(`${h.baseURL}/responses/${id}?stream=true&starting_after=1`, { headers: { authorization: `Bearer ${KEY}`, 'last-event-id': '20' } });
    const rest = await eventsOf(res);
    expect(seqs(rest)[0]).toBe(21);
  });

  it('cancel: upstream cancelled, the live stream and every log reader end with response.cancelled', async () => {
    const client = sdk(h.baseURL);
    const stream = await client.responses.create({ model: 'fake-model', input: 'Hi', stream: true });
    const live: Array<Record<string, unknown>> = [];
    let cancelled: Promise<unknown> | undefined;
    let reader: Promise<Array<Record<string, unknown>>> | undefined;
    for await (const e of stream) {
      live.push(e as unknown as Record<string, unknown>);
      if (live.length === 5) {
        const id = (live[0] as { response: { id: string } }).response.id;
        reader = (async () => {
          const got: Array<Record<string, unknown>> = [];
          for await (const x of await client.responses.retrieve(id, { stream: true, starting_after: 0 })) got.push(x as unknown as Record<string, unknown>);
          return got;
        })();
        cancelled = client.responses.cancel(id);
      }
    }
    const id = (live[0] as { response: { id: string } }).response.id;
    expect(((await cancelled) as { status: string }).status).toBe('cancelled');
    const read = await reader!;
    const sent = h.provider.responses.get(id)!;
    expect(sent.cancelledAt).toBeDefined();
    expect(live.length).toBeLessThan(sent.events.length);
    expect(live.some((e) => e['type'] === 'response.completed')).toBe(false);
    expect(read.some((e) => e['type'] === 'response.completed' || e['type'] === 'error')).toBe(false);
    // Each ends with the cancel (never a body cut short, which a resuming client would reconnect after).
    const liveBefore = beforeCancel(live, id);
    const readBefore = beforeCancel(read, id);
    expect(liveBefore).toEqual(sent.events.slice(0, liveBefore.length));
    expect(readBefore).toEqual(sent.events.slice(1, 1 + readBefore.length));
  });
});

describe('auth isolation', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ provider: { answer: words(20), eventDelayMs: 2 }, gateway: { background: true } });
  });
  afterAll(() => h.close());

  it("another key cannot resume or cancel a stream: 404, never the other caller's data", async () => {
    const { id } = await firstEvents(h, 2);
    const other = sdk(h.baseURL, OTHER);
    await expect(other.responses.retrieve(id, { stream: true, starting_after: 0 })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(other.responses.cancel(id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    // The owner still can.
    const rest: unknown[] = [];
    for await (const e of await sdk(h.baseURL).responses.retrieve(id, { stream: true, starting_after: 0 })) rest.push(e);
    expect(rest).toEqual(h.provider.responses.get(id)!.events.slice(1));
  });

  it('no Authorization: 401 in the OpenAI shape', async () => {
    const res = await fetch(`${h.baseURL}/responses`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param: null, code: 'missing_api_key' } });
  });

  it('authorize(): the application names the owner and holds the upstream key; a refusal is its own status', async () => {
    const app = await startHarness({
      provider: { answer: words(10), apiKey: 'sk-upstream-held-by-gateway' },
      gateway: {
        authorize: (req) => {
          const user = req.headers['x-user'];
          if (typeof user !== 'string') throw new GatewayHttpError(401, 'Sign in first.');
          return { owner: user, apiKey: 'sk-upstream-held-by-gateway' };
        },
      },
    });
    try {
      const as = (user?: string) => new OpenAI({ apiKey: 'unused', baseURL: app.baseURL, maxRetries: 0, defaultHeaders: user ? { 'x-user': user } : {} });
      const events: Array<Record<string, unknown>> = [];
      for await (const e of await as('alice').responses.create({ model: 'fake-model', input: 'Hi', stream: true })) events.push(e as unknown as Record<string, unknown>);
      const id = (events[0] as { response: { id: string } }).response.id;
      expect(events).toEqual(app.provider.responses.get(id)!.events);
      await expect(as('bob').responses.retrieve(id, { stream: true })).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      // With a shared upstream key, the gateway guards the non-streaming routes of a response too.
      await expect(as('bob').responses.retrieve(id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
      expect((await as('alice').responses.retrieve(id)).id).toBe(id);
      await expect(as().responses.create({ model: 'fake-model', input: 'Hi' })).rejects.toMatchObject({ status: 401, message: expect.stringContaining('Sign in first.') });
    } finally {
      await app.close();
    }
  });
});

describe('errors', () => {
  it('malformed JSON is a 400 with the SDK-readable body; a body over the limit a 413', async () => {
    const h = await startHarness({ gateway: { limits: { maxBodyBytes: 1024 } } });
    try {
      const bad = await post(h, '/v1/responses', '{"model": "x", "input": ');
      expect(bad.status).toBe(400);
      expect((await bad.json()) as unknown).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_json', param: null } });
      const big = await post(h, '/v1/responses', JSON.stringify({ model: 'fake-model', input: 'x'.repeat(4096), stream: true }));
      expect(big.status).toBe(413);
      expect((await big.json()) as unknown).toMatchObject({ error: { code: 'request_too_large' } });
      await expect(sdk(h.baseURL).responses.create({ model: 'fake-model', input: 'x'.repeat(4096), stream: true })).rejects.toMatchObject({ status: 413 });
      const notObject = await post(h, '/v1/responses', '[1,2]');
      expect(notObject.status).toBe(400);
      expect(h.provider.requests).toHaveLength(0); // none of them reached the upstream
    } finally {
      await h.close();
    }
  });

  it('over maxConcurrentStreams: 429 (RateLimitError), also while a left client\'s stream is still recorded; a slot frees when it ends', async () => {
    const h = await startHarness({ provider: { answer: words(100), eventDelayMs: 20 }, gateway: { limits: { maxConcurrentStreams: 1 } } });
    try {
      const first = await sdk(h.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true });
      await expect(sdk(h.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true })).rejects.toBeInstanceOf(OpenAI.RateLimitError);
      expect(h.gateway.metrics().errors['429']).toBe(1);
      // A client that leaves does not free the slot while its upstream stream is still being recorded.
      const firstIterator = first[Symbol.asyncIterator]();
      await firstIterator.next();
      await firstIterator.return?.();
      while (h.gateway.metrics().streams.clients > 0) await new Promise((r) => setTimeout(r, 5));
      expect(h.gateway.metrics().streams.producers).toBe(1);
      await expect(sdk(h.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true })).rejects.toBeInstanceOf(OpenAI.RateLimitError);
      // The slot frees once the first response has been recorded to its end.
      while (h.gateway.metrics().streams.producers > 0) await new Promise((r) => setTimeout(r, 10));
      const again = await sdk(h.baseURL).responses.stream({ model: 'fake-model', input: 'Hi' }).finalResponse();
      expect(again.output_text).toBe(words(100));
    } finally {
      await h.close();
    }
  });

  it('upstream down: 502 (not the SDK connection error: the gateway answered)', async () => {
    const dead = await listen(() => undefined);
    const port = (dead.address() as AddressInfo).port;
    await closeServer(dead);
    const h = await startHarness({ gateway: { upstream: { baseURL: `http://127.0.0.1:${port}/v1` } } });
    try {
      await expect(sdk(h.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true })).rejects.toMatchObject({ status: 502, code: 'bad_gateway' });
      await expect(sdk(h.baseURL).models.list()).rejects.toMatchObject({ status: 502 });
    } finally {
      await h.close();
    }
  });

  it('an upstream that never answers: 504 after timeouts.upstreamMs', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const h = await startHarness({ gateway: { upstream: { baseURL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1` }, timeouts: { upstreamMs: 300 } } });
    try {
      await expect(sdk(h.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true })).rejects.toMatchObject({ status: 504 });
      await expect(sdk(h.baseURL).models.list()).rejects.toMatchObject({ status: 504 });
      // A client that leaves before the first event does not leave its upstream request waiting for ever.
      const controller = new AbortController();
      const leaving = fetch(`${h.baseURL}/responses`, {
        method: 'POST', signal: controller.signal, body: JSON.stringify({ model: 'fake-model', input: 'Hi', stream: true }),
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      }).catch((e: unknown) => e);
      while (h.gateway.metrics().streams.producers === 0) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
      expect(await leaving).toMatchObject({ name: 'AbortError' });
      while (h.gateway.metrics().streams.producers > 0) await new Promise((r) => setTimeout(r, 20));
    } finally {
      await h.close();
      await closeServer(silent);
    }
  });

  it('upstream HTTP errors pass through with their status and fields', async () => {
    const h = await startHarness({ provider: { apiKey: 'sk-right-key-000000' } });
    try {
      await expect(sdk(h.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true })).rejects.toMatchObject({ status: 401, code: 'invalid_api_key' });
    } finally {
      await h.close();
    }
  });

  it('unknown paths, outside /v1 and under it, are 404; /healthz and /metrics answer', async () => {
    const h = await startHarness();
    try {
      const r = await fetch(`${h.origin}/admin`);
      expect(r.status).toBe(404);
      expect((await r.json()) as unknown).toMatchObject({ error: { type: 'not_found_error' } });
      expect(await (await fetch(`${h.origin}/healthz`)).json()).toEqual({ status: 'ok' });
      const m = (await (await fetch(`${h.origin}/metrics`)).json()) as Record<string, unknown>;
      expect(m).toMatchObject({ streams: { clients: 0, producers: 0 }, events: { total: 0 }, log: { appendsInFlight: 0 } });
      // Under /v1 a path the gateway does not implement is its own 404 too: nothing is forwarded (issue 24).
      const up = await fetch(`${h.baseURL}/no-such-thing`, { headers: { authorization: `Bearer ${KEY}` } });
      expect(up.status).toBe(404);
      expect((await up.json()) as unknown).toMatchObject({ error: { type: 'not_found_error', code: 'unknown_url' } });
      expect(h.provider.requests).toEqual([]);
    } finally {
      await h.close();
    }
  });
});

describe('connections', () => {
  it('an idle stream gets a `: keep-alive` comment every timeouts.heartbeatMs ms (and still every event once)', async () => {
    let release!: () => void;
    const h = await startHarness({ provider: { answer: words(5), hold: new Promise<void>((r) => (release = r)) }, gateway: { timeouts: { heartbeatMs: 20 } } });
    try {
      const res = await post(h, '/v1/responses', JSON.stringify({ model: 'fake-model', input: 'Hi', stream: true }));
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes(': keep-alive\n\n')) text += new TextDecoder().decode((await reader.read()).value);
      release();
      for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
      const events = await eventsOf(new Response(text, { headers: { 'content-type': 'text/event-stream' } }));
      const id = (events[0] as { response: { id: string } }).response.id;
      expect(events).toEqual(h.provider.responses.get(id)!.events);
    } finally {
      release();
      await h.close();
    }
  });

  it('a body that stops arriving is a 408 after timeouts.bodyMs, and the connection is closed', async () => {
    const h = await startHarness({ gateway: { timeouts: { bodyMs: 200 } } });
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(h.origin).port), '127.0.0.1');
        let got = '';
        socket.on('data', (d) => (got += d.toString()));
        socket.on('close', () => resolve(got));
        socket.on('error', reject);
        socket.write(`POST /v1/responses HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"model":`);
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toContain('"code":"request_timeout"');
      expect(h.provider.requests).toHaveLength(0);
    } finally {
      await h.close();
    }
  });

  it('a response id that cannot be decoded or cannot be an id is a 404, not a 500', async () => {
    const h = await startHarness();
    try {
      for (const path of ['/v1/responses/%E0%A4%A?stream=true', '/v1/responses/..%2F..%2Fadmin?stream=true', '/v1/responses/%E0%A4%A/cancel']) {
        const res = await fetch(`${h.origin}${path}`, { method: path.endsWith('cancel') ? 'POST' : 'GET', headers: { authorization: `Bearer ${KEY}` } });
        expect([path, res.status]).toEqual([path, 404]);
      }
      expect(h.provider.requests).toHaveLength(0);
    } finally {
      await h.close();
    }
  });
});

describe('clients that leave early', () => {
  it('a resume whose client left while the gateway waited for the stream to appear holds no slot once it appears', async () => {
    let release!: () => void;
    const h = await startHarness({ provider: { answer: words(5), hold: new Promise<void>((r) => (release = r)) }, gateway: { timeouts: { notFoundMs: 30_000 } } });
    try {
      const { id: firstId } = await firstEvents(h, 1);
      const nextId = firstId.replace(/_(\d+)$/, (_, n: string) => `_${Number(n) + 1}`);
      const controller = new AbortController();
      const leaving = fetch(`${h.baseURL}/responses/${nextId}?stream=true`, { signal: controller.signal, headers: { authorization: `Bearer ${KEY}` } }).catch((e: unknown) => e);
      await new Promise((r) => setTimeout(r, 100)); // the gateway is waiting in the log for nextId now
      controller.abort();
      await leaving;
      // nextId appears (its stream held open upstream): the waiting route must not start a stream for the client that left.
      const { id } = await firstEvents(h, 1);
      expect(id).toBe(nextId);
      release();
      while (h.gateway.metrics().streams.clients + h.gateway.metrics().streams.producers > 0) await new Promise((r) => setTimeout(r, 20));
    } finally {
      release();
      await h.close();
    }
  });
});
