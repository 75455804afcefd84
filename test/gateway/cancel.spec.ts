// Cancelling a foreground response (the gateway's default: no `background`) with the official SDK's
// responses.cancel(id): the upstream cannot cancel it (background only), the gateway does by closing its
// request, so every reader ends, on this instance and on another one sharing the log, and the SDK gets the
// response so far with status `cancelled`, not the upstream's 400; the readers' streams end with `response.cancelled`.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { createGateway, type Gateway } from '../../gateway/index';
import { memoryEventLog } from '../../lib/log/memory';
import { startFakeProvider, type FakeProvider } from '../../testing/index';
import { closeServer, listen, words } from './helpers';

jest.setTimeout(60_000);
// Long enough (5 s at 10 ms an event) that a loaded machine cannot finish it before the cancel arrives.

const KEY = 'sk-test-cancel-0000';
type Event = Record<string, unknown>;

let provider: FakeProvider;
const log = memoryEventLog();
const gateways: Gateway[] = [];
const servers: Server[] = [];
let a: string;
let b: string;

async function instance(): Promise<string> {
  const g = createGateway({ upstream: { baseURL: provider.baseURL }, log });
  const s = await listen(g);
  gateways.push(g);
  servers.push(s);
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`;
}

beforeAll(async () => {
  provider = await startFakeProvider({ answer: words(500), eventDelayMs: 10 });
  a = await instance();
  b = await instance(); // another instance of the fleet: the same log, its own producers
});
afterAll(async () => {
  for (const s of servers) await closeServer(s);
  for (const g of gateways) await g.close();
  await provider.close();
});

const sdk = (baseURL: string) => new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0, timeout: 30_000 });
const idOf = (events: Event[]): string => (events[0] as { response: { id: string } }).response.id;
const ended = (events: Event[]): boolean => events.some((e) => e['type'] === 'response.completed' || e['type'] === 'error');

/** Streams through `via`; after 5 events starts a reader on `readVia` and cancels on `cancelVia`. */
async function streamAndCancel(via: string, readVia: string, cancelVia: string) {
  const live: Event[] = [];
  let reader: Promise<Event[]> | undefined;
  let answer: Promise<unknown> | undefined;
  for await (const e of await sdk(via).responses.create({ model: 'fake-model', input: 'Hi', stream: true })) {
    live.push(e as unknown as Event);
    if (live.length === 5) {
      const follow = await sdk(readVia).responses.retrieve(idOf(live), { stream: true, starting_after: 0 });
      reader = (async () => {
        const got: Event[] = [];
        for await (const x of follow) got.push(x as unknown as Event);
        return got;
      })();
      answer = sdk(cancelVia).responses.cancel(idOf(live)).catch((err: unknown) => err);
    }
  }
  return { live, read: await reader!, answer: (await answer!) as { id?: string; status?: string; output_text?: string } };
}

it.each([
  ['on the instance streaming it', () => a],
  ['on another instance sharing the log', () => b],
])('a foreground response cancelled with responses.cancel(id) %s: every reader ends, the SDK gets it `cancelled`', async (_, cancelVia) => {
  const { live, read, answer } = await streamAndCancel(a, b, cancelVia());
  const id = idOf(live);
  const sent = provider.responses.get(id)!.events;
  expect(answer).toMatchObject({ id, status: 'cancelled', object: 'response' });
  expect(words(500).startsWith(answer.output_text ?? '')).toBe(true);
  expect(live.length).toBeLessThan(sent.length);
  expect(ended(live) || ended(read)).toBe(false);
  // Each reader ends with the cancel, numbered after its last event: never a body cut short, which a
  // resuming client would take for an interruption and reconnect after.
  for (const events of [live, read]) {
    const seq = (events[events.length - 2] as { sequence_number: number }).sequence_number;
    expect(events[events.length - 1]).toMatchObject({ type: 'response.cancelled', sequence_number: seq + 1, response: { id, status: 'cancelled' } });
  }
  expect(live.slice(0, -1)).toEqual(sent.slice(0, live.length - 1));
  expect(read.slice(0, -1)).toEqual(sent.slice(1, read.length));
  // The upstream request was closed: the producer is gone on every instance.
  for (const g of gateways) while (g.metrics().streams.producers + g.metrics().streams.clients > 0) await new Promise((r) => setTimeout(r, 10));
});

it('a response that already ended is not the gateway\'s to cancel: the upstream answers (here its 400)', async () => {
  const events: Event[] = [];
  for await (const e of await sdk(a).responses.create({ model: 'fake-model', input: 'Hi', stream: true })) events.push(e as unknown as Event);
  await expect(sdk(a).responses.cancel(idOf(events))).rejects.toBeInstanceOf(OpenAI.BadRequestError);
});
