// A slow client: the gateway's memory for it stays bounded. A client that stops reading makes the socket push
// back; past `limits.maxPendingBytes` waiting for it, the gateway lets the live stream go (it goes on into the
// log) instead of queueing it, and feeds the client again from the log once the socket drains. Checked on the
// gateway's side of the socket: when the whole ~30 MB answer is in the log, what the gateway holds for the client
// is at most the bound, one write and one event, and the client, reading again, still gets every event once, in
// order. A chat stream, which no log holds, ends past the bound with a typed error chunk.
import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { memoryEventLog } from '../../lib/log/memory';
import { expectNoInternals } from './slow-client';
import { startHarness, type Harness } from './helpers';

jest.setTimeout(180_000);

const BOUND = 64 * 1024;
/** What one flush of the pump joins at most before it writes (FLUSH_AT in sse.ts). */
const FLUSH_AT = 16 * 1024;

const WORDS = 60_000;
const word = (i: number): string => `${String(i).padStart(6, '0')}${'x'.repeat(54)} `;
const answer = Array.from({ length: WORDS }, (_, i) => word(i)).join('').trimEnd();

let h: Harness;
const served: ServerResponse[] = [];
const chatServed: ServerResponse[] = [];
beforeAll(async () => {
  h = await startHarness({
    provider: { answer },
    gateway: { log: memoryEventLog({ maxEvents: 200_000, maxBytes: 512 * 1024 * 1024 }), limits: { maxPendingBytes: BOUND } },
  });
  h.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/v1/responses') served.push(res);
    if (req.url === '/v1/chat/completions') chatServed.push(res);
  });
});
afterAll(() => h.close());

const until = async (ok: () => boolean, what: string): Promise<void> => {
  for (let i = 0; !ok(); i++) {
    if (i > 15_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

it('a client that stops reading costs at most maxPendingBytes, not the stream; reading again it gets every event once', async () => {
  const url = new URL(`${h.baseURL}/responses`);
  const body = JSON.stringify({ model: 'fake-model', input: 'Hi', stream: true });
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { authorization: 'Bearer sk-test-slow-client-0', 'content-type': 'application/json' } }, resolve);
    req.on('error', reject);
    req.end(body);
  });
  expect(res.statusCode).toBe(200);
  res.pause(); // the slow client: reads nothing for now

  // The upstream stream runs to its end (into the log) while the client reads nothing.
  await until(() => h.provider.responses.size === 1 && h.gateway.metrics().streams.producers === 0, 'the upstream stream to end');
  const id = [...h.provider.responses.keys()][0]!;
  const sent = h.provider.responses.get(id)!.events;
  const frames = sent.map((e) => Buffer.byteLength(`id: ${String(e['sequence_number'])}\nevent: ${String(e['type'])}\ndata: ${JSON.stringify(e)}\n\n`));
  const total = frames.reduce((a, b) => a + b, 0);
  const largest = Math.max(...frames);
  expect(total).toBeGreaterThan(25 * 1024 * 1024);
  const held = served[0]!.writableLength;
  expect(held).toBeLessThanOrEqual(BOUND + FLUSH_AT + 2 * largest);

  // Reading again: everything, each event once, in order (the rest read back from the log).
  res.setEncoding('utf8');
  let text = '';
  res.on('data', (c: string) => (text += c));
  res.resume();
  await new Promise<void>((resolve) => res.on('end', resolve));
  const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
  expect(ids).toEqual(sent.map((_, i) => i));
  expect(text.endsWith(`data: ${JSON.stringify(sent[sent.length - 1])}\n\n`)).toBe(true);
});

it('a chat client that stops reading (its stream cannot be re-read) is ended past maxPendingBytes with client_too_slow, not buffered without bound', async () => {
  const url = new URL(`${h.baseURL}/chat/completions`);
  const body = JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'Hi' }], stream: true });
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { authorization: 'Bearer sk-test-slow-chat-0', 'content-type': 'application/json' } }, resolve);
    req.on('error', reject);
    req.end(body);
  });
  expect(res.statusCode).toBe(200);
  res.pause();
  const gatewaySide = chatServed[0]!;
  // The gateway gives the client up (its ~15 MB of chunks do not fit): the response is ended, its slot freed,
  // and what waits for the client stays within the bound (and one chunk, and the error chunk).
  await until(() => gatewaySide.writableEnded, 'the slow chat client to be ended');
  await until(() => h.gateway.metrics().streams.clients === 0, 'the slot to be freed');
  expect(gatewaySide.writableLength).toBeLessThanOrEqual(BOUND + 2048);
  res.setEncoding('utf8');
  let text = '';
  res.on('data', (c: string) => (text += c));
  res.resume();
  await new Promise<void>((resolve) => res.on('end', resolve));
  expect(text).not.toContain('data: [DONE]');
  const last = text.trimEnd().split('\n\n').pop()!;
  expect(JSON.parse(last.slice('data: '.length))).toMatchObject({ error: { type: 'server_error', code: 'client_too_slow' } });
  expectNoInternals(last);
});
