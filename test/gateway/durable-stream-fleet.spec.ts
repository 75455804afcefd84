// A recorded response's Durable Stream resumed after a kill of the gateway process that recorded it: two gateway
// processes A and B (the CLI from source with tsx, `--redis … --background`) share one real Redis; the fake provider
// runs in this process. A records a response; a reader (the protocol's own client) reads A's stream up to some
// offset; A is killed with SIGKILL (after the response ended, or mid-stream); B serves the stream from that offset.
// Together, every event exactly once, equal to what the upstream sent, and the stream closes at the terminal event.
import OpenAI from 'openai';
import { ownerOf } from '../../gateway/index';
import { fromDurableStream } from '../../lib/durable-streams/from-durable-stream';
import { formatOffset } from '../../lib/durable-streams/offsets';
import type { LogScope } from '../../lib/log/types';
import { lapseSoon } from '../log/takeover-helpers';
import { fleetBed, killed, type Instance } from './fleet-instances';
import { readStream, readWithRx, streamUrl, type ReadOptions, type ReadResult } from './durable-stream-read';
import { seqs } from './helpers';

jest.setTimeout(120_000);

const KEY = 'sk-test-dsfleet-0000-aaaa';
const OWNER = ownerOf(`Bearer ${KEY}`);
/** The instances' lease: long, so that no pause of a busy machine lapses it while its holder lives. */
const LEASE_MS = 30_000;
/** How long a killed instance's lease outlives it: its last renewal, made by the test once it is dead. */
const LAPSE_MS = 1000;

const bed = fleetBed(LEASE_MS);
const startInstance = (name: string): Promise<Instance> => bed.start(name);

/** Both readers: the protocol's own client, and openai-rx's fromDurableStream. */
const CASES = [
  ['the protocol\'s client', 'sse'], ['the protocol\'s client', 'long-poll'], ['fromDurableStream', 'sse'], ['fromDurableStream', 'long-poll'],
] as const;
type Client = (typeof CASES)[number][0];
const reader = (client: Client) => (url: string, o: ReadOptions): Promise<ReadResult> => (client === 'fromDurableStream' ? readWithRx(url, o) : readStream(url, o));

const sdk = (baseURL: string) => new OpenAI({ apiKey: KEY, baseURL, maxRetries: 0, timeout: 60_000 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Until the log holds the stream's events up to `seq`. */
async function storedUpTo(scope: LogScope, seq: number): Promise<void> {
  while (((await bed.log.state(scope))?.lastSequenceNumber ?? -1) < seq) await sleep(10);
}

describe('a recorded response\'s Durable Stream, resumed on another instance after a SIGKILL', () => {
  test.each(CASES)('A killed after the response ended: B serves the rest from the reader\'s offset (%s, live %s)', async (client, live) => {
    const read = reader(client);
    const [a, b] = await Promise.all([startInstance('A'), startInstance('B')]);
    try {
      // A reader follows A's stream live while A records the response, and stops at 40 events; the response ends.
      const created = await sdk(a.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true });
      let id = '';
      const client = (async () => {
        for await (const e of created) id ||= (e as { response?: { id: string } }).response?.id ?? '';
      })();
      while (id === '') await sleep(5);
      const first = await read(streamUrl(a.baseURL, id), { live, key: KEY, stopAt: 40 });
      await client;
      const sent = bed.provider.responses.get(id)!.events;
      expect(first.closed).toBe(false);
      expect(first.items.length).toBeLessThan(sent.length);
      expect(first.offset).toBe(formatOffset(first.items.length));
      expect((await bed.log.state({ responseId: id, owner: OWNER }))?.end).toBe('completed');
      await killed(a.child);

      const rest = await read(streamUrl(b.baseURL, id), { offset: first.offset, live, key: KEY });
      expect(rest.closed).toBe(true);
      expect([...first.items, ...rest.items]).toEqual(sent);
      // And from the start, on B, with a catch-up read.
      expect((await read(streamUrl(b.baseURL, id), { live: false, key: KEY })).items).toEqual(sent);
    } finally {
      await killed(a.child);
      await killed(b.child);
    }
    expect(b.stderr()).toBe('');
  });

  test.each(CASES)('A killed mid-stream: B serves what A recorded from the reader\'s offset, then the rest as the response is continued, closing at response.completed (%s, live %s)', async (client, live) => {
    const read = reader(client);
    const [a, b] = await Promise.all([startInstance('A'), startInstance('B')]);
    try {
      // The response streams through A; its client reads nothing more once it has the id (A records on its own).
      const created = await sdk(a.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true });
      let id = '';
      const client = (async () => {
        try {
          for await (const e of created) {
            id ||= (e as { response?: { id: string } }).response?.id ?? '';
          }
        } catch {
          // A's connection dies with it.
        }
      })();
      while (id === '') await sleep(5);
      const scope: LogScope = { responseId: id, owner: OWNER };
      // A reader follows A's stream live, and has 12 events when A dies (its recording of them reached Redis).
      const first = await read(streamUrl(a.baseURL, id), { live, key: KEY, stopAt: 12 });
      expect(first.closed).toBe(false);
      await storedUpTo(scope, 20);
      await killed(a.child);
      await lapseSoon(bed.log, scope, LAPSE_MS);
      await client;
      const stored = (await bed.log.state(scope))!;
      expect(stored.end).toBeUndefined();

      // The reader resumes on B from its offset: what A recorded, then (once B continues the response from the
      // upstream, taking A's lease over: a streamed GET of the response on B) the rest, live.
      const resumed = read(streamUrl(b.baseURL, id), { offset: first.offset, live, key: KEY });
      await sleep(200);
      const continued: Array<Record<string, unknown>> = [];
      for await (const e of await sdk(b.baseURL).responses.retrieve(id, { stream: true, starting_after: stored.lastSequenceNumber! })) continued.push(e as unknown as Record<string, unknown>);
      expect(continued[continued.length - 1]!['type']).toBe('response.completed');
      const rest = await resumed;

      const sent = bed.provider.responses.get(id)!.events;
      const all = [...first.items, ...rest.items];
      expect(rest.closed).toBe(true);
      expect(seqs(all)).toEqual(sent.map((_, i) => i));
      expect(all).toEqual(sent);
      // The resumed reader got events recorded by A (before the kill) and by B (after it).
      expect(rest.items.length).toBeGreaterThan(stored.lastSequenceNumber! + 1 - first.items.length);
      expect(bed.provider.requests.some((r) => r.method === 'GET' && r.url.startsWith(`/v1/responses/${id}?stream=true`))).toBe(true);
    } finally {
      await killed(a.child);
      await killed(b.child);
    }
    expect(b.stderr()).toBe('');
  });

  test.each(['sse', 'long-poll'] as const)('A killed under a live fromDurableStream reader (%s): its own reconnect, sent to B as a load balancer would, resumes from its last offset, each event once', async (live) => {
    const [a, b] = await Promise.all([startInstance('A'), startInstance('B')]);
    try {
      const created = await sdk(a.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true });
      let id = '';
      const client = (async () => {
        try {
          for await (const e of created) id ||= (e as { response?: { id: string } }).response?.id ?? '';
        } catch {
          // A's connection dies with it.
        }
      })();
      while (id === '') await sleep(5);
      const scope: LogScope = { responseId: id, owner: OWNER };
      // The balancer in front of the fleet: A while it lives, then B.
      let origin = new URL(a.baseURL).origin;
      const balanced: typeof fetch = (input, init) => fetch(String(input).replace(new URL(a.baseURL).origin, origin), init);
      const items: Array<Record<string, unknown>> = [];
      let killedAt = -1;
      const done = new Promise<void>((resolve, reject) => {
        fromDurableStream<Record<string, unknown>>(streamUrl(a.baseURL, id), {
          live, fetch: balanced, headers: { authorization: `Bearer ${KEY}` }, retry: { maxAttempts: 20, delayMs: 100 },
        }).subscribe({
          next: (batch) => {
            if ('messages' in batch) items.push(...batch.messages);
            // A dies under the reader once it has read 12 events (their recording reached Redis first).
            if (killedAt < 0 && items.length >= 12) {
              killedAt = items.length;
              void (async () => {
                await storedUpTo(scope, 20);
                await killed(a.child);
                origin = new URL(b.baseURL).origin;
                await lapseSoon(bed.log, scope, LAPSE_MS);
              })().catch(reject);
            }
          },
          error: reject,
          complete: resolve,
        });
      });
      while (killedAt < 0 || (a.child.exitCode === null && a.child.signalCode === null)) await sleep(10);
      await client;
      // B continues the response (a streamed GET takes A's lease over): the reader, on B by now, reads it live.
      const stored = (await bed.log.state(scope))!;
      expect(stored.end).toBeUndefined();
      for await (const e of await sdk(b.baseURL).responses.retrieve(id, { stream: true, starting_after: stored.lastSequenceNumber! })) void e;
      await done;
      const sent = bed.provider.responses.get(id)!.events;
      expect(seqs(items)).toEqual(sent.map((_, i) => i));
      expect(items).toEqual(sent);
    } finally {
      await killed(a.child);
      await killed(b.child);
    }
    expect(b.stderr()).toBe('');
  });

  test('another owner gets a 404 on B too, and write methods a 405', async () => {
    const b = await startInstance('B');
    try {
      let id = '';
      for await (const e of await sdk(b.baseURL).responses.create({ model: 'fake-model', input: 'Hi', stream: true })) id ||= (e as { response?: { id: string } }).response?.id ?? '';
      const url = streamUrl(b.baseURL, id);
      const other = await fetch(url, { headers: { Authorization: 'Bearer sk-test-dsfleet-someone-else' } });
      expect(other.status).toBe(404);
      expect(await other.text()).not.toContain('someone-else');
      for (const method of ['PUT', 'POST', 'DELETE']) expect((await fetch(url, { method, headers: { Authorization: `Bearer ${KEY}` } })).status).toBe(405);
      expect((await readStream(url, { live: false, key: KEY })).items).toEqual(bed.provider.responses.get(id)!.events);
    } finally {
      await killed(b.child);
    }
  });
});
