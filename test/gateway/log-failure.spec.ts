// The log fails mid-stream while the client that started the stream reads slower than the upstream sends: the
// client still gets every event the upstream sent, byte for byte as a direct stream, ending with the terminal
// event (kept for it in memory, never the log's shorter copy); a follower, whose events come from the log, gets
// a typed error with no word of the log's own. The client reads nothing until the upstream has finished, so
// the order of things is fixed whatever the machine's speed; that it really was behind is checked on the
// gateway's side of its socket.
import { ownerOf } from '../../gateway/index';
import { memoryEventLog } from '../../lib/log/memory';
import type { EventLog } from '../../lib/log/types';
import { startHarness, type Harness } from './helpers';
import { errorEvents, expectNoInternals, frameOf, get, longAnswer, outageAfter, readAll, servedBy, slowClient, until } from './slow-client';

jest.setTimeout(300_000);

const AUTH = 'Bearer sk-test-log-failure-0';
const MiB = 1024 * 1024;
const answer = longAnswer(24_000);

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/**
 * Starts a gateway on `log`, a client that reads nothing until the upstream stream has ended, and checks it then
 * gets all of it. Returns the response id and what the gateway held for the client when the upstream ended.
 */
async function slowClientGetsEverything(log: EventLog): Promise<{ id: string; held: number }> {
  const started = await startHarness({ provider: { answer }, gateway: { log, limits: { maxPendingBytes: 64 * MiB }, timeouts: { heartbeatMs: 0 } } });
  h = started;
  const served = servedBy(started);
  const res = await slowClient(`${started.baseURL}/responses`, AUTH, { model: 'fake-model', input: 'Hi', stream: true });
  expect(res.statusCode).toBe(200);
  await until(() => started.provider.responses.size === 1 && started.gateway.metrics().streams.producers === 0, 'the upstream stream to end');
  const held = served('/v1/responses')[0]!.writableLength;
  const [id, sent] = [...started.provider.responses.entries()][0]!;
  const text = await readAll(res);
  expect(text).toBe(sent.events.map(frameOf).join(''));
  return { id, held };
}

it('a log whose appends fail after 200 events: the slow starting client gets every event, byte for byte, to the terminal event', async () => {
  const outage = outageAfter(memoryEventLog(), 200);
  const { held } = await slowClientGetsEverything(outage.log);
  expect(outage.failed).toBe(true);
  expect(outage.stored).toBeLessThanOrEqual(200);
  // The client was behind when the upstream ended: far more than one socket buffer waited for it.
  expect(held).toBeGreaterThan(MiB);
});

it('a follower whose log is down is answered log_unavailable (503), in no word of Redis', async () => {
  const outage = outageAfter(memoryEventLog(), 200);
  const { id } = await slowClientGetsEverything(outage.log);
  const follower = await get(`${h!.baseURL}/responses/${id}?stream=true`, AUTH);
  expect(follower.status).toBe(503);
  expect(JSON.parse(follower.text)).toMatchObject({ error: { code: 'log_unavailable', type: 'server_error' } });
  expectNoInternals(follower.text);
});

it.each([
  ['maxEvents', { maxEvents: 300 }],
  ['maxBytes', { maxBytes: 256 * 1024 }],
])('a stream past the log’s %s: the slow starting client gets every event; a follower gets a typed error, no internals', async (_, limits) => {
  const log = memoryEventLog(limits);
  const { id, held } = await slowClientGetsEverything(log);
  expect(held).toBeGreaterThan(MiB);
  // The log holds a prefix only.
  const stored = await log.read({ responseId: id, owner: ownerOf(AUTH) }, undefined);
  expect(stored.length).toBeLessThan(h!.provider.responses.get(id)!.events.length);
  // A follower reads the prefix from the log, then is told the rest is not there, in the gateway's words.
  const follower = await get(`${h!.baseURL}/responses/${id}?stream=true`, AUTH);
  expect(follower.status).toBe(200);
  const errors = errorEvents(follower.text);
  expect(errors).toHaveLength(1);
  expect(['log_unavailable', 'stream_interrupted']).toContain(errors[0]!['code']);
  expectNoInternals(follower.text);
});
