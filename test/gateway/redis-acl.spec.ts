// The gateway over Redis as the least-privilege ACL user of docs/durable-log.md (the line read from that
// page): a response streamed through gateway A and resumed from gateway B, and a cancel sent to B, with
// Redis refusing that user nothing (ACL LOG). Redis's default user is there, used only by the test's admin.
import OpenAI from 'openai';
import type { AddressInfo } from 'node:net';
import { createGateway } from '../../gateway/index';
import { startFakeProvider, type FakeProvider } from '../../testing/index';
import { aclUser, refusedTo } from '../log/redis-acl';
import { redisForSuite } from '../log/redis-server';
import { beforeCancel, closeServer, listen, words } from './helpers';

jest.setTimeout(60_000);

const KEY = 'sk-test-acl-0000-aaaa';
const USER = 'openai-rx';
const redis = redisForSuite();
let provider: FakeProvider;
let url: string;

beforeAll(async () => {
  url = await aclUser(redis.admin, redis.server.port, USER);
  provider = await startFakeProvider({ answer: words(120), eventDelayMs: 10 });
});
afterAll(async () => {
  await provider?.close();
});
afterEach(async () => {
  const refused = await refusedTo(redis.admin, USER);
  await redis.admin.call('ACL', 'LOG', 'RESET');
  expect(refused).toEqual([]);
});

/** Two gateways on one Redis as the ACL user, and an SDK client for each. */
async function twoGateways(): Promise<{ a: OpenAI; b: OpenAI; close: () => Promise<void> }> {
  const [ga, gb] = [createGateway({ upstream: { baseURL: provider.baseURL }, log: url }), createGateway({ upstream: { baseURL: provider.baseURL }, log: url })];
  const [sa, sb] = [await listen(ga), await listen(gb)];
  const sdk = (s: typeof sa) => new OpenAI({ apiKey: KEY, baseURL: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`, maxRetries: 0, timeout: 60_000 });
  return {
    a: sdk(sa),
    b: sdk(sb),
    close: async () => {
      await closeServer(sa);
      await closeServer(sb);
      await ga.close(); // jest's detectOpenHandles fails the run if a Redis connection is left open
      await gb.close();
    },
  };
}

describe('two gateways sharing Redis as the least-privilege ACL user', () => {
  it('a response streamed through A is resumed from B, every event once', async () => {
    const { a, b, close } = await twoGateways();
    try {
      const first: Array<Record<string, unknown>> = [];
      for await (const e of await a.responses.create({ model: 'fake-model', input: 'Hi', stream: true })) {
        first.push(e as unknown as Record<string, unknown>);
        if (first.length === 20) break;
      }
      const id = (first[0] as { response: { id: string } }).response.id;
      const rest: Array<Record<string, unknown>> = [];
      for await (const e of await b.responses.retrieve(id, { stream: true, starting_after: 19 })) rest.push(e as unknown as Record<string, unknown>);
      expect([...first, ...rest]).toEqual(provider.responses.get(id)!.events);
    } finally {
      await close();
    }
  });

  it("a cancel sent to B ends A's live stream with response.cancelled", async () => {
    const { a, b, close } = await twoGateways();
    try {
      const live: Array<Record<string, unknown>> = [];
      let answer: Promise<{ id?: string; status?: string }> | undefined;
      for await (const e of await a.responses.create({ model: 'fake-model', input: 'Hi', stream: true })) {
        live.push(e as unknown as Record<string, unknown>);
        if (live.length === 5) answer = b.responses.cancel((live[0] as { response: { id: string } }).response.id);
      }
      const id = (live[0] as { response: { id: string } }).response.id;
      expect(await answer!).toMatchObject({ id, status: 'cancelled' });
      const sent = provider.responses.get(id)!.events;
      expect(live.length).toBeLessThan(sent.length);
      const before = beforeCancel(live, id);
      expect(before).toEqual(sent.slice(0, before.length));
    } finally {
      await close();
    }
  });
});
