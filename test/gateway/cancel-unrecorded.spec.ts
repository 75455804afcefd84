// A foreground response cancelled while its producer holds the lease but its first append is still in flight
// (the log knows the stream, with no event yet): it is still a foreground response, cancelled by the gateway
// (the SDK gets it `cancelled`), not sent upstream as if it were a background create nobody streamed.
import OpenAI from 'openai';
import { memoryEventLog } from '../../lib/log/memory';
import type { EventLog } from '../../lib/log/types';
import { startHarness, words, type Harness } from './helpers';

jest.setTimeout(60_000);

const KEY = 'sk-test-unrecorded-0000';

it('cancelled before its first event is recorded: answered `cancelled` by the gateway, no upstream cancel', async () => {
  const inner = memoryEventLog();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let acquired = false;
  const log: EventLog = {
    ...inner,
    acquire: async (s, ms) => {
      const lease = await inner.acquire(s, ms);
      acquired = true;
      return lease;
    },
    append: (s, t, events) => gate.then(() => inner.append(s, t, events)),
  };
  const h: Harness = await startHarness({ provider: { answer: words(100), eventDelayMs: 10 }, gateway: { log } });
  try {
    const sdk = new OpenAI({ apiKey: KEY, baseURL: h.baseURL, maxRetries: 0, timeout: 30_000 });
    const stream = await sdk.responses.create({ model: 'fake-model', input: 'Hi', stream: true });
    const it = stream[Symbol.asyncIterator]();
    const first = (await it.next()).value as { type: string; response: { id: string } };
    expect(first.type).toBe('response.created');
    const id = first.response.id;
    while (!acquired) await new Promise((r) => setTimeout(r, 5));
    const before = h.provider.requests.filter((r) => r.url.endsWith('/cancel')).length;
    const answer = await sdk.responses.cancel(id).catch((e: unknown) => e);
    open();
    expect(answer).toMatchObject({ id, status: 'cancelled' });
    expect(h.provider.requests.filter((r) => r.url.endsWith('/cancel'))).toHaveLength(before);
    await it.return?.();
  } finally {
    open();
    await h.close();
    await inner.close();
  }
});
