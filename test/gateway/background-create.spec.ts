// A background response created without streaming through the gateway ("create now, stream it later", the
// API's background flow) can be streamed later through the gateway: the SDK's retrieve({ stream: true }) gets
// the upstream's events, each once; with `authorize` only its owner reaches it; its cancel goes upstream.
import OpenAI from 'openai';
import { GatewayHttpError } from '../../gateway/index';
import { beforeCancel, seqs, startHarness, words, type Harness } from './helpers';

jest.setTimeout(60_000);

const KEY = 'sk-test-owner-aaaa-0000';
const sdk = (baseURL: string, key = KEY) => new OpenAI({ apiKey: key, baseURL, maxRetries: 0, timeout: 30_000 });

async function all<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe('background responses created without streaming', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ provider: { answer: words(30), eventDelayMs: 5 } });
  });
  afterAll(() => h.close());

  it("create({ background: true }), then retrieve(id, { stream: true }): every upstream event once, from the gateway's log", async () => {
    const created = await sdk(h.baseURL).responses.create({ model: 'fake-model', input: 'Hi', background: true });
    expect(created.id).toMatch(/^resp_fake_/);
    const events = await all(await sdk(h.baseURL).responses.retrieve(created.id, { stream: true }));
    const sent = h.provider.responses.get(created.id)!.events;
    expect(events).toEqual(sent);
    expect(events.at(-1)!.type).toBe('response.completed');
    // Recorded as it streamed: a second reader, with a cursor, gets the rest from the log (no new upstream stream).
    const before = h.provider.requests.length;
    const rest = await all(await sdk(h.baseURL).responses.retrieve(created.id, { stream: true, starting_after: 5 }));
    expect(rest).toEqual(sent.slice(6));
    expect(h.provider.requests.length).toBe(before);
  });

  it('two readers at once: one takes the stream over, the other follows the log; both get every event once', async () => {
    const created = await sdk(h.baseURL).responses.create({ model: 'fake-model', input: 'Hi', background: true });
    const [a, b] = await Promise.all([
      sdk(h.baseURL).responses.retrieve(created.id, { stream: true }).then(all),
      sdk(h.baseURL).responses.retrieve(created.id, { stream: true, starting_after: 2 }).then(all),
    ]);
    const sent = h.provider.responses.get(created.id)!.events;
    expect(a).toEqual(sent);
    expect(b).toEqual(sent.slice(3));
    const streamed = h.provider.requests.filter((r) => r.url.startsWith(`/v1/responses/${created.id}?stream=true`));
    expect(streamed).toHaveLength(1);
  });

  it('a response created without background is forwarded and not recorded: a streamed retrieve is a 404', async () => {
    const g = await startHarness({ provider: { eventDelayMs: 0 }, gateway: { timeouts: { notFoundMs: 50 } } });
    try {
      const plain = await sdk(g.baseURL).responses.create({ model: 'fake-model', input: 'Hi' });
      await expect(sdk(g.baseURL).responses.retrieve(plain.id, { stream: true })).rejects.toMatchObject({ status: 404 });
    } finally {
      await g.close();
    }
  });
});

describe('with authorize (one upstream key for every caller)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      provider: { answer: words(200), eventDelayMs: 20, apiKey: 'sk-upstream-shared' },
      gateway: {
        timeouts: { notFoundMs: 50 },
        authorize: (req) => {
          const user = req.headers['authorization']?.replace(/^Bearer /, '');
          if (!user?.startsWith('user-')) throw new GatewayHttpError(401, 'Unknown user.');
          return { owner: user, apiKey: 'sk-upstream-shared' };
        },
      },
    });
  });
  afterAll(() => h.close());

  it("another caller's streamed retrieve, retrieve and cancel are 404s; the owner's cancel goes upstream and ends its stream", async () => {
    const created = await sdk(h.baseURL, 'user-one').responses.create({ model: 'fake-model', input: 'Hi', background: true });
    const other = sdk(h.baseURL, 'user-two');
    await expect(other.responses.retrieve(created.id, { stream: true })).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.cancel(created.id)).rejects.toMatchObject({ status: 404 });
    expect(h.provider.responses.get(created.id)!.cancelledAt).toBeUndefined();

    const owner = sdk(h.baseURL, 'user-one');
    const stream = await owner.responses.retrieve(created.id, { stream: true });
    const got: Array<{ sequence_number: number }> = [];
    for await (const e of stream) {
      got.push(e);
      if (got.length === 5) {
        const cancelled = await owner.responses.cancel(created.id);
        expect(cancelled.status).toBe('cancelled');
      }
    }
    const sent = h.provider.responses.get(created.id)!;
    expect(sent.cancelledAt).toBeDefined();
    // Every event read is the upstream's, in order; the stream ended at the cancel, far before the answer's end,
    // with response.cancelled (never a body cut short, which a resuming client would reconnect after).
    const before = beforeCancel(got as unknown as Array<Record<string, unknown>>, created.id);
    expect(before).toEqual(sent.events.slice(0, before.length));
    expect(seqs(got)).toEqual(got.map((_, i) => i));
    expect(got.length).toBeLessThan(sent.events.length);
  });
});
