// Two gateway processes A and B (the CLI, `openai-rx gateway --redis … --background`, run from source with
// tsx) share one real Redis; the fake provider runs in this process. The official SDK streams a response
// through A; A is killed with SIGKILL mid-stream; the SDK's responses.retrieve(id, { stream: true,
// starting_after }) against B delivers the rest: B takes the dead producer's lease over and continues the
// response from the upstream. Together, every event exactly once, equal to what the upstream sent.
import OpenAI from 'openai';
import { createGateway, ownerOf } from '../../gateway/index';
import { lapseSoon } from '../log/takeover-helpers';
import { fleetBed, killed, type Instance } from './fleet-instances';
import { beforeCancel, closeServer, listen, seqs } from './helpers';
import type { AddressInfo } from 'node:net';

jest.setTimeout(120_000);

const KEY = 'sk-test-fleet-0000-aaaa';
/** The instances' lease: long, so that no pause of a busy machine lapses it while its holder lives. */
const LEASE_MS = 30_000;
/** How long a killed instance's lease outlives it: its last renewal, made by the test once it is dead. */
const LAPSE_MS = 1000;

const bed = fleetBed(LEASE_MS);
const startInstance = (name: string): Promise<Instance> => bed.start(name);

describe('two gateway processes sharing one Redis', () => {
  it.each([12, 90])('A is killed with SIGKILL after %i events reached the client; B delivers the rest, each event once', async (killAfter) => {
    const [a, b] = await Promise.all([startInstance('A'), startInstance('B')]);
    const sdk = (baseURL: string) => new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0, timeout: 60_000 });
    const got: Array<Record<string, unknown>> = [];
    let id: string | undefined;
    let cut: unknown;
    try {
      for await (const e of await sdk(a.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true })) {
        got.push(e as unknown as Record<string, unknown>);
        id ??= (e as { response?: { id: string } }).response?.id;
        if (got.length === killAfter) {
          // A is mid-stream: its recording has reached Redis (watched, not timed), and it dies without a word.
          const scope = { responseId: id!, owner: ownerOf(`Bearer ${KEY}`) };
          while (((await bed.log.state(scope))?.lastSequenceNumber ?? -1) < 1) await new Promise((r) => setTimeout(r, 10));
          await killed(a.child);
          await lapseSoon(bed.log, scope, LAPSE_MS);
        }
      }
    } catch (e) {
      cut = e; // the SDK sees A's connection die
    }
    expect(cut).toBeDefined();
    expect(got.length).toBeGreaterThanOrEqual(killAfter);
    const sent = bed.provider.responses.get(id!)!.events;
    expect(got.length).toBeLessThan(sent.length);

    const last = got[got.length - 1]!['sequence_number'] as number;
    const rest: Array<Record<string, unknown>> = [];
    for await (const e of await sdk(b.baseURL).responses.retrieve(id!, { stream: true, starting_after: last })) rest.push(e as unknown as Record<string, unknown>);

    const all = [...got, ...rest];
    expect(seqs(all)).toEqual(sent.map((_, i) => i));
    expect(all).toEqual(sent);
    expect(rest[rest.length - 1]!['type']).toBe('response.completed');
    // B continued the response from the upstream after A's lease lapsed (LAPSE_MS after A's death, not LEASE_MS).
    expect(bed.provider.requests.some((r) => r.method === 'GET' && r.url.startsWith(`/v1/responses/${id}?stream=true`))).toBe(true);
    await killed(b.child);
    expect(b.stderr()).toBe('');
  });
});

describe('cancel across instances', () => {
  it('a cancel sent to B ends the stream A is serving and every reader, with no error: with response.cancelled', async () => {
    const [a, b] = await Promise.all([startInstance('A'), startInstance('B')]);
    try {
      const sdk = (baseURL: string) => new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0, timeout: 60_000 });
      const live: Array<Record<string, unknown>> = [];
      let reader: Promise<Array<Record<string, unknown>>> | undefined;
      let answer: Promise<{ status?: string }> | undefined;
      for await (const e of await sdk(a.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true })) {
        live.push(e as unknown as Record<string, unknown>);
        if (live.length === 5) {
          const id = (live[0] as { response: { id: string } }).response.id;
          const follow = await sdk(b.baseURL).responses.retrieve(id, { stream: true, starting_after: 0 });
          reader = (async () => {
            const got: Array<Record<string, unknown>> = [];
            for await (const x of follow) got.push(x as unknown as Record<string, unknown>);
            return got;
          })();
          answer = sdk(b.baseURL).responses.cancel(id) as Promise<{ status?: string }>;
        }
      }
      const id = (live[0] as { response: { id: string } }).response.id;
      expect((await answer!).status).toBe('cancelled');
      const followed = await reader!;
      const sent = bed.provider.responses.get(id)!.events;
      expect(live.length).toBeLessThan(sent.length);
      for (const got of [live, followed]) expect(got.some((e) => e['type'] === 'response.completed' || e['type'] === 'error')).toBe(false);
      // Each ends with the cancel (never a body cut short, which a resuming client would reconnect after).
      const liveBefore = beforeCancel(live, id);
      const followedBefore = beforeCancel(followed, id);
      expect(liveBefore).toEqual(sent.slice(0, liveBefore.length));
      expect(followedBefore).toEqual(sent.slice(1, 1 + followedBefore.length));
      expect(a.stderr() + b.stderr()).toBe('');
    } finally {
      await Promise.all([killed(a.child), killed(b.child)]);
    }
  });
});

describe('createGateway({ log: "redis://…" }) in one process', () => {
  it('records to Redis, resumes from it (seen by another log client), and close() releases its connections', async () => {
    const gateway = createGateway({ upstream: { baseURL: bed.provider.baseURL }, log: bed.redis.url });
    const server = await listen(gateway);
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    try {
      const client = new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0 });
      const first: Array<Record<string, unknown>> = [];
      for await (const e of await client.responses.create({ model: 'fake-model', input: 'Hi', stream: true })) {
        first.push(e as unknown as Record<string, unknown>);
        if (first.length === 20) break;
      }
      const id = (first[0] as { response: { id: string } }).response.id;
      const rest: Array<Record<string, unknown>> = [];
      for await (const e of await client.responses.retrieve(id, { stream: true, starting_after: 19 })) rest.push(e as unknown as Record<string, unknown>);
      const sent = bed.provider.responses.get(id)!.events;
      expect([...first, ...rest]).toEqual(sent);
      // The recording is in Redis, under the owner's hash: this process's own client reads it whole.
      expect(await bed.log.read({ responseId: id, owner: ownerOf(`Bearer ${KEY}`) }, undefined)).toEqual(sent);
      expect(await bed.log.read({ responseId: id, owner: ownerOf('Bearer someone-else') }, undefined)).toEqual([]);
    } finally {
      await closeServer(server);
      await gateway.close(); // jest's detectOpenHandles fails the run if a Redis connection is left open
    }
  });
});

describe('a foreground response (no background) on two gateways sharing Redis', () => {
  it("a cancel on B ends A's live stream (its producer, fenced off in Redis, closes the upstream request) and answers it `cancelled`", async () => {
    const [ga, gb] = [createGateway({ upstream: { baseURL: bed.provider.baseURL }, log: bed.redis.url }), createGateway({ upstream: { baseURL: bed.provider.baseURL }, log: bed.redis.url })];
    const [sa, sb] = [await listen(ga), await listen(gb)];
    const url = (s: typeof sa) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`;
    const sdk = (baseURL: string) => new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0, timeout: 60_000 });
    try {
      const live: Array<Record<string, unknown>> = [];
      let answer: Promise<{ id?: string; status?: string }> | undefined;
      for await (const e of await sdk(url(sa)).responses.create({ model: 'fake-model', input: 'Hi', stream: true })) {
        live.push(e as unknown as Record<string, unknown>);
        if (live.length === 5) answer = sdk(url(sb)).responses.cancel((live[0] as { response: { id: string } }).response.id);
      }
      const id = (live[0] as { response: { id: string } }).response.id;
      expect(await answer!).toMatchObject({ id, status: 'cancelled' });
      const sent = bed.provider.responses.get(id)!.events;
      expect(live.length).toBeLessThan(sent.length);
      expect(live.some((e) => e['type'] === 'response.completed' || e['type'] === 'error')).toBe(false);
      const liveBefore = beforeCancel(live, id);
      expect(liveBefore).toEqual(sent.slice(0, liveBefore.length));
      expect(bed.provider.responses.get(id)!.background).toBe(false);
      while (ga.metrics().streams.producers > 0) await new Promise((r) => setTimeout(r, 10));
    } finally {
      await closeServer(sa);
      await closeServer(sb);
      await ga.close();
      await gb.close();
    }
  });
});
