// The official `openai` SDK against the gateway over real loopback sockets: a streamed response passes
// through unchanged (every event the upstream sent, each once, in order), and a stream is resumed with the
// SDK's own retrieve({ stream: true, starting_after }).
import OpenAI from 'openai';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { lastValueFrom, tap, toArray } from 'rxjs';
import { retrieveResponseStream, streamResponse } from '../../lib/http/transports';
import { resumeFrom } from '../../operators/resumeFrom';
import { closeServer, listen, startHarness, seqs, words, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ provider: { answer: words(40) } });
});
afterAll(() => h.close());

const client = (key = 'sk-test-user-one-0000') => new OpenAI({ apiKey: key, baseURL: h.baseURL, maxRetries: 0 });

describe('the official SDK through the gateway', () => {
  it('streams a response: every upstream event once, in order, with the same payloads', async () => {
    const stream = await client().responses.create({ model: 'fake-model', input: 'Hi', stream: true });
    const got: Array<Record<string, unknown>> = [];
    for await (const e of stream) got.push(e as unknown as Record<string, unknown>);
    const id = (got[0] as { response: { id: string } }).response.id;
    const sent = h.provider.responses.get(id)!.events;
    expect(got).toEqual(sent);
    expect(seqs(got)).toEqual(sent.map((_, i) => i));
    expect(got[got.length - 1]!['type']).toBe('response.completed');
  });

  it("the SDK's stream helper gets the final text", async () => {
    const final = await client().responses.stream({ model: 'fake-model', input: 'Hi' }).finalResponse();
    expect(final.output_text).toBe(words(40));
  });

  it('resumes with retrieve({ stream: true, starting_after }) from the log: the rest, once', async () => {
    const stream = await client().responses.create({ model: 'fake-model', input: 'Hi', stream: true });
    const first: Array<Record<string, unknown>> = [];
    for await (const e of stream) {
      first.push(e as unknown as Record<string, unknown>);
      if (first.length === 10) break; // the client leaves mid-stream: the gateway goes on recording
    }
    const id = (first[0] as { response: { id: string } }).response.id;
    const rest: Array<Record<string, unknown>> = [];
    const resumed = await client().responses.retrieve(id, { stream: true, starting_after: 9 });
    for await (const e of resumed) rest.push(e as unknown as Record<string, unknown>);
    expect([...first, ...rest]).toEqual(h.provider.responses.get(id)!.events);
  });

  it("resumes with the SDK's stream helper: responses.stream({ response_id, starting_after }) gets the rest and the final response", async () => {
    const first: Array<Record<string, unknown>> = [];
    for await (const e of await client().responses.create({ model: 'fake-model', input: 'Hi', stream: true })) {
      first.push(e as unknown as Record<string, unknown>);
      if (first.length === 8) break;
    }
    const id = (first[0] as { response: { id: string } }).response.id;
    const helper = client().responses.stream({ response_id: id, starting_after: 7 });
    const rest: Array<Record<string, unknown>> = [];
    helper.on('event', (e) => rest.push(e as unknown as Record<string, unknown>));
    const final = await helper.finalResponse();
    expect(final.id).toBe(id);
    expect(final.output_text).toBe(words(40));
    expect([...first, ...rest]).toEqual(h.provider.responses.get(id)!.events);
  });

  it('forwards non-streaming requests as they are', async () => {
    const r = await client().responses.create({ model: 'fake-model', input: 'Hi' });
    expect(r.output_text).toBe(words(40));
    const models = await client().models.list();
    expect(models.data.map((m) => m.id)).toEqual(['fake-model']);
  });
});

describe('non-streaming requests are forwarded as they are', () => {
  it('chat.completions.create without stream: the body (the JSON the gateway read, serialised again) to the upstream\'s /chat/completions, its answer back', async () => {
    const seen: Array<{ method?: string; url?: string; body: string; authorization?: string }> = [];
    const completion = {
      id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'gpt-x',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there', refusal: null }, finish_reason: 'stop', logprobs: null }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    };
    const upstream = await listen((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, body, authorization: req.headers.authorization });
        res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_up_1' });
        res.end(JSON.stringify(completion));
      });
    });
    const g = await startHarness({ gateway: { upstream: { baseURL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1` } } });
    try {
      const c = new OpenAI({ apiKey: 'sk-test-user-one-0000', baseURL: g.baseURL, maxRetries: 0 });
      const { data, response } = await c.chat.completions
        .create({ model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2, n: 2, seed: 7 })
        .withResponse();
      expect(data).toEqual(completion);
      expect(response.headers.get('x-request-id')).toBe('req_up_1');
      // Forwarded as it is: no mapping (n and seed, refused on the streamed path, reach the upstream untouched).
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/chat/completions', authorization: 'Bearer sk-test-user-one-0000' });
      expect(JSON.parse(seen[0]!.body)).toEqual({ model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2, n: 2, seed: 7 });
      // stream: false is not a stream either.
      await c.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'Hi' }], stream: false });
      expect(JSON.parse(seen[1]!.body)).toMatchObject({ stream: false });
      expect(g.provider.requests).toHaveLength(0);
    } finally {
      await g.close();
      await closeServer(upstream);
    }
  });
});

describe("the library's own transports through the gateway", () => {
  it('streamResponse + resumeFrom(retrieveResponseStream): the gateway drops every connection mid-stream; the rest comes from its log, each event once', async () => {
    const config = { baseURL: h.baseURL, apiKey: 'sk-test-user-one-0000' };
    let n = 0;
    const events = await lastValueFrom(
      streamResponse({ model: 'fake-model', input: 'Hi' }, config).pipe(
        tap(() => {
          // The gateway's side cuts the connection after the 10th event (a restart, a load balancer's timeout).
          if (++n === 10) for (const s of (h.server as Server & { sockets: Set<Socket> }).sockets) s.destroy();
        }),
        resumeFrom((c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config), { delayMs: 10 }),
        toArray(),
      ),
    );
    const id = (events[0] as { response: { id: string } }).response.id;
    expect(n).toBeGreaterThan(10);
    expect(events).toEqual(h.provider.responses.get(id)!.events);
  });
});
