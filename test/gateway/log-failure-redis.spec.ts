// A real redis-server killed mid-stream (SIGKILL, as a crash) while the client that started the stream reads
// nothing: the client still gets every event the upstream sent, byte for byte, to the terminal event, and no
// client (it, a follower) ever sees a word of Redis's. The upstream holds after its first event until the test
// has seen it in Redis and killed the server, so the kill falls mid-stream whatever the machine's speed.
import { ownerOf } from '../../gateway/index';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog } from '../../lib/log/types';
import { startRedisServer, type RedisServer } from '../log/redis-server';
import { startHarness, type Harness } from './helpers';
import { errorEvents, expectNoInternals, frameOf, get, longAnswer, readAll, servedBy, slowClient, until } from './slow-client';

jest.setTimeout(300_000);

const AUTH = 'Bearer sk-test-redis-killed-0';
const MiB = 1024 * 1024;

let redis: RedisServer | undefined;
let log: EventLog | undefined;
let h: Harness | undefined;
let release: () => void = () => undefined;
afterAll(async () => {
  release();
  await h?.close();
  await log?.close();
  await redis?.stop();
});

it('Redis killed mid-stream: the slow starting client gets every event, byte for byte; a follower gets log_unavailable, no Redis words', async () => {
  redis = await startRedisServer();
  // Redis stays dead: past a short retry budget the log gives up (a restart within the budget is ridden through).
  log = redisEventLog({ url: redis.url, commandTimeoutMs: 1000, retryBudgetMs: 1000 });
  const hold = new Promise<void>((resolve) => (release = resolve));
  const started = await startHarness({ provider: { answer: longAnswer(24_000), hold }, gateway: { log, limits: { maxPendingBytes: 64 * MiB }, timeouts: { heartbeatMs: 0 } } });
  h = started;
  const served = servedBy(started);
  const res = await slowClient(`${started.baseURL}/responses`, AUTH, { model: 'fake-model', input: 'Hi', stream: true });
  expect(res.statusCode).toBe(200);

  // The first event is in Redis: the stream is being recorded. Then Redis dies, and the upstream goes on.
  await until(() => started.provider.responses.size === 1, 'the upstream response');
  const id = [...started.provider.responses.keys()][0]!;
  const scope = { responseId: id, owner: ownerOf(AUTH) };
  for (let i = 0; (await log.read(scope, undefined)).length === 0; i++) {
    if (i > 15_000) throw new Error('the first event never reached Redis');
    await new Promise((r) => setTimeout(r, 10));
  }
  await redis.kill();
  release();

  await until(() => started.gateway.metrics().streams.producers === 0, 'the upstream stream to end');
  // The client was behind when the upstream ended: far more than one socket buffer waited for it.
  expect(served('/v1/responses')[0]!.writableLength).toBeGreaterThan(MiB);
  const text = await readAll(res);
  expect(text).toBe(started.provider.responses.get(id)!.events.map(frameOf).join(''));
  expect(errorEvents(text)).toEqual([]);
  // The recording failed: the log's append errors were counted. An append fails once its retry budget (1 s) has
  // run out, which may be after the client has read everything (a fast gateway relays 24,000 events in less).
  await until(() => started.gateway.metrics().log.errors > 0, 'the failed append to be counted', 30_000);
  expect(started.gateway.metrics().log).toMatchObject({ appendsInFlight: 0 });

  // A follower, whose events would come from Redis: a typed 503 in the gateway's words.
  const follower = await get(`${started.baseURL}/responses/${id}?stream=true`, AUTH);
  expect(follower.status).toBe(503);
  expect(JSON.parse(follower.text)).toMatchObject({ error: { code: 'log_unavailable', type: 'server_error' } });
  expectNoInternals(follower.text);
});
