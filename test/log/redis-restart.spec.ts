// A single Redis restarted in place (issue 25): killed (SIGKILL) in the middle of 120 live streams and started
// again on the same port (append-only file fsynced always, so what it acknowledged survives). The log rides
// through within its retry budget (default 20 s): every producer (persistTo, one redisEventLog) completes, and
// every live reader (fromEventLog, another redisEventLog, as another process would have) and late reader gets
// exactly what its producer sent. An outage longer than the budget is redis-outage.spec.ts's case.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog } from '../../lib/log/types';
import { lateReads, type LiveStream, startLiveRun, summary, until, watchEnded, wrongOnes } from './live-streams';
import { type RedisServer, startRedisServer } from './redis-server';
import { type Outcome, sleep } from './takeover-helpers';

jest.setTimeout(600_000);

const STREAMS = 120;
const PACE_MS = 10;
/** Each stream's progress before the kill, and again after the restart before the streams end. */
const PROGRESS = 30;
/** How long Redis stays down: a real outage, well within the retry budget. */
const DOWN_MS = 2000;
const WAIT_MS = 180_000;

let dir: string;
let server: RedisServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'openai-rx-restart-'));
  server = await startRedisServer({ persistDir: dir });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** How many connections Redis has besides the one asking. */
async function otherClients(): Promise<number> {
  const admin = new Redis(server.url, { lazyConnect: true });
  await admin.connect();
  try {
    return String(await admin.client('LIST')).trim().split('\n').length - 1;
  } finally {
    await admin.quit();
  }
}

const progressed = (streams: readonly LiveStream[], ended: Set<string>, seq: (s: LiveStream) => number, what: string): Promise<void> =>
  until(
    () => streams.every((s) => ended.has(s.id) || s.acked > seq(s)),
    WAIT_MS,
    () => `${what}: ${streams.filter((s) => !ended.has(s.id) && s.acked <= seq(s)).length} streams did not progress`,
  );

test(`Redis killed and restarted on its port in the middle of ${STREAMS} live streams: every producer completes; every live and late reader gets exactly what was sent`, async () => {
  const logs: EventLog[] = [redisEventLog({ url: server.url }), redisEventLog({ url: server.url }), redisEventLog({ url: server.url })];
  const [producerLog, readerLog, lateLog] = logs as [EventLog, EventLog, EventLog];
  const tag = `${process.pid}_${Date.now().toString(36)}`;
  const ids = Array.from({ length: STREAMS }, (_, i) => `resp_restart_${tag}_${i}`);
  let producers: Outcome[] = [];
  let live: Outcome[] = [];
  try {
    const run = startLiveRun({ producerLog, readerLog, ids, paceMs: PACE_MS });
    const ended = watchEnded(run.streams);
    try {
      await progressed(run.streams, ended, () => PROGRESS, 'before the kill');
      await server.kill();
      await sleep(DOWN_MS);
      await server.restart(); // resolves once it answers PING (after loading its append-only file)
      const at = new Map(run.streams.map((s) => [s.id, s.acked]));
      await progressed(run.streams, ended, (s) => at.get(s.id)! + PROGRESS, 'after the restart');
    } finally {
      run.end();
      producers = await Promise.all(run.streams.map((s) => s.producer));
      live = await Promise.all(run.streams.map((s) => s.live));
    }
    const late = await lateReads(lateLog, run.streams);
    expect(summary([...wrongOnes('producer', run.streams, producers), ...wrongOnes('live reader', run.streams, live), ...wrongOnes('late reader', run.streams, late)])).toEqual([]);
  } finally {
    for (const l of logs) await l.close();
  }
  // Every connection of the logs (main, tail, blocking, reconnected ones) is gone once they are closed.
  for (let i = 0; (await otherClients()) > 0 && i < 200; i++) await sleep(50);
  expect(await otherClients()).toBe(0);
});
