// What of an upstream's answer reaches a client (gateway/answer-masking.ts): allow-listed headers, masked;
// a body masked as it streams, wherever the chunks are cut; the gateway's own errors masked in every field.
import type { AddressInfo } from 'node:net';
import { maskedAnswer, answerSecrets, isKeptHeader } from '../../gateway/answer-masking';
import { GatewayHttpError } from '../../gateway/errors';
import { createGateway } from '../../gateway/index';
import { closeServer, listen } from './helpers';
import { fragmentIn } from '../reliability/leaks';

const KEY = 'sk-proj-GATEWAYSECRETgatewaysecret0123456789abcdef';
const CALLER_KEY = 'per-caller-key-Qw8Er7Ty6Ui5Op4';
const secrets = answerSecrets(KEY, { authorization: `Bearer ${CALLER_KEY}`, 'openai-beta': 'assistants=v2' });

function answer(chunks: readonly (string | Uint8Array)[], init: ResponseInit): Response {
  const enc = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const x of chunks) c.enqueue(typeof x === 'string' ? enc.encode(x) : x);
      c.close();
    },
  });
  return new Response(body, init);
}

describe('maskedAnswer', () => {
  const body = JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}. Also Bearer ${CALLER_KEY} and ${CALLER_KEY.slice(2, 14)}; é😀`, code: 'invalid_api_key' } });

  test('a body cut at every position around the key comes back masked, valid JSON, the rest unchanged', async () => {
    const bytes = new TextEncoder().encode(body);
    const whole = await maskedAnswer(answer([bytes], { status: 401 }), secrets).text();
    expect(fragmentIn(whole, KEY.slice(8))).toBeUndefined();
    expect(fragmentIn(whole, CALLER_KEY)).toBeUndefined();
    expect(JSON.parse(whole)).toEqual({ error: { message: 'Incorrect API key provided: [redacted]. Also Bearer [redacted] and [redacted]; é😀', code: 'invalid_api_key' } });
    for (let cut = 1; cut < bytes.length; cut++) {
      const got = await maskedAnswer(answer([bytes.subarray(0, cut), bytes.subarray(cut)], { status: 401 }), secrets).text();
      expect(got).toBe(whole);
    }
  });

  test('headers: only the allow-list comes back, values masked', () => {
    const up = new Headers({
      'content-type': 'application/json',
      'x-request-id': `req_${KEY.slice(10, 30)}`,
      'x-ratelimit-remaining-tokens': '1000',
      'retry-after-ms': '20',
      'openai-processing-ms': '7',
      'www-authenticate': `Bearer error="invalid_token" token="${KEY}"`,
      'set-cookie': `s=${CALLER_KEY}`,
      'openai-organization': 'org-operator',
      'x-echo': KEY,
      location: `https://upstream.example/${KEY}`,
    });
    const got = maskedAnswer(new Response(null, { status: 302, headers: up }), secrets);
    expect(Object.fromEntries(got.headers)).toEqual({
      'content-type': 'application/json',
      'x-request-id': 'req_[redacted]',
      'x-ratelimit-remaining-tokens': '1000',
      'retry-after-ms': '20',
      'openai-processing-ms': '7',
    });
    expect(got.status).toBe(302);
    for (const name of ['Content-Type', 'X-RateLimit-Limit-Requests', 'retry-after', 'x-should-retry']) expect(isKeptHeader(name)).toBe(true);
    for (const name of ['set-cookie', 'www-authenticate', 'openai-organization', 'openai-project', 'location', 'server', 'x-api-key']) expect(isKeptHeader(name)).toBe(false);
  });

  test('a status without a body keeps none', async () => {
    const got = maskedAnswer(answer(['ignored'], { status: 200 }), secrets);
    expect(got.status).toBe(200);
    const none = maskedAnswer(new Response(null, { status: 204 }), secrets);
    expect(none.body).toBeNull();
    expect(await got.text()).toBe('ignored');
  });

  test('the secrets: the gateway key and the credential the request carried, not other headers', () => {
    expect(secrets).toEqual([KEY, CALLER_KEY]);
    expect(answerSecrets(undefined, { 'api-key': CALLER_KEY })).toEqual([CALLER_KEY]);
  });
});

describe('GatewayHttpError', () => {
  test('every field passed through from an upstream error is masked, not only the message', () => {
    const e = new GatewayHttpError(401, `bad key ${KEY}`, { type: `Bearer ${CALLER_KEY}`, param: KEY, code: `sk-live-${'Z'.repeat(20)}` });
    const text = JSON.stringify(e.body);
    expect(fragmentIn(text, KEY.slice(8))).toBeUndefined();
    expect(fragmentIn(text, CALLER_KEY)).toBeUndefined();
    expect(text).not.toContain('ZZZZZZZZ');
    expect(e.body.error.param).toBe('[redacted]');
  });
});

describe('a caller-specific key from authorize', () => {
  test("an upstream echoing the caller's own key (no key shape, only its characters) and the gateway key: neither reaches the client", async () => {
    // The upstream answers with what it was sent: the caller's key, cut, in the body and in an allow-listed header.
    const upstreamFetch = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
      const sent = new Headers(init?.headers).get('authorization') ?? '';
      const key = sent.replace(/^Bearer /, '');
      return new Response(JSON.stringify({ error: { message: `key ${key.slice(3)} refused; not ${KEY.slice(12)}`, code: null } }), {
        status: 401,
        headers: { 'content-type': 'application/json', 'x-request-id': `req-${key.slice(5, 25)}`, 'x-echo': sent },
      });
    };
    const gateway = createGateway({
      upstream: { baseURL: 'http://upstream.invalid/v1', apiKey: KEY, fetch: upstreamFetch as typeof fetch },
      authorize: () => ({ owner: 'u1', apiKey: CALLER_KEY }),
    });
    const server = await listen(gateway);
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/models`, { headers: { authorization: 'Bearer anything' } });
      const text = await res.text();
      const all = `${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${text}`;
      expect(res.status).toBe(401);
      expect(fragmentIn(all, CALLER_KEY)).toBeUndefined();
      expect(fragmentIn(all, KEY.slice(8))).toBeUndefined();
      expect(JSON.parse(text)).toEqual({ error: { message: 'key [redacted] refused; not [redacted]', code: null } });
      expect(res.headers.get('x-request-id')).toBe('req-[redacted]');
      expect(res.headers.get('x-echo')).toBeNull();
    } finally {
      await closeServer(server);
      await gateway.close();
    }
  });
});
