// accessLog as a function: each request's entry, once its answer is done; a function that throws or rejects
// changes nothing for the request (issue 24). And the option is checked at creation.
import { InvalidOptionError } from '../../lib/errors';
import { createGateway, type GatewayOptions } from '../../gateway/index';
import type { AccessLogEntry } from '../../gateway/access-log';
import { startHarness, words } from './helpers';

const KEY = 'sk-test-access-log-0000';
const get = (origin: string, path: string) => fetch(`${origin}${path}`, { headers: { authorization: `Bearer ${KEY}` } });

test('a function gets one entry per request, the chat stream\'s chunks counted as events', async () => {
  const entries: AccessLogEntry[] = [];
  const h = await startHarness({ provider: { answer: words(5) }, gateway: { accessLog: (e) => void entries.push(e) } });
  try {
    const res = await fetch(`${h.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }], stream: true }),
    });
    const text = await res.text();
    await (await get(h.origin, '/healthz')).text();
    for (let i = 0; i < 100 && entries.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
    const chunks = (text.match(/^data: /gm) ?? []).length; // the chunks and [DONE]
    expect(entries[0]).toMatchObject({ method: 'POST', route: 'POST /v1/chat/completions', status: 200, events: chunks, bytesOut: Buffer.byteLength(text) });
    expect(entries[1]).toMatchObject({ route: 'GET /healthz', status: 200, owner: null });
    expect(JSON.stringify(entries)).not.toContain(KEY);
  } finally {
    await h.close();
  }
});

test('a Responses stream: its events and every byte the pump wrote, on the socket itself or through res.write', async () => {
  const entries: AccessLogEntry[] = [];
  const h = await startHarness({ provider: { answer: words(40) }, gateway: { accessLog: (e) => void entries.push(e) } });
  try {
    const res = await fetch(`${h.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'fake-model', input: 'Hi', stream: true }),
    });
    const text = await res.text();
    for (let i = 0; i < 100 && entries.length < 1; i++) await new Promise((r) => setTimeout(r, 10));
    const events = (text.match(/^data: /gm) ?? []).length;
    expect(events).toBeGreaterThan(40);
    expect(entries[0]).toMatchObject({ route: 'POST /v1/responses', status: 200, events, bytesOut: Buffer.byteLength(text) });
  } finally {
    await h.close();
  }
});

test.each([
  ['throws', () => { throw new Error(`logger down ${KEY}`); }],
  ['rejects', () => Promise.reject(new Error('logger down')) as unknown as void],
])('a function that %s: every request is answered as without it', async (_, accessLog) => {
  const h = await startHarness({ gateway: { accessLog } });
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown): void => void unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  try {
    for (let i = 0; i < 3; i++) {
      const r = await get(h.origin, '/v1/models');
      expect(r.status).toBe(200);
      expect(await r.json()).toMatchObject({ object: 'list' });
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await h.close();
  }
});

test.each([['yes'], [true], [{}], ['stderr']])('accessLog %p is an InvalidOptionError at creation', (accessLog) => {
  expect(() => createGateway({ accessLog } as unknown as GatewayOptions)).toThrow(InvalidOptionError);
});
