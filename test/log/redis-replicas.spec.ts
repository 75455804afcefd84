// `replicas: n` against a real master and replica (a second redis-server started with --replicaof): an append
// and an acquire count as done only once WAIT on the same connection says the replica has them; while the
// replica hangs (SIGSTOP), they are tried again (each is idempotent) and fail as 'unavailable' past the retry
// budget; with it back, the same append completes, stored once.
import { EventLogError } from '../../lib/errors';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog, LogScope } from '../../lib/log/types';
import { created, delta } from './contract';
import { commandCalls } from './outcomes';
import { replicaPairForSuite } from './redis-server-args';

jest.setTimeout(120_000);

const logs: EventLog[] = [];
const pair = replicaPairForSuite(async () => {
  for (const l of logs) await l.close();
});

let n = 0;
const scope = (): LogScope => ({ responseId: `resp_replicas_${++n}` });
const newLog = (options: { replicas?: number } = {}): EventLog => {
  const log = redisEventLog({ url: pair.master.url, keyPrefix: 'replicas:', replicaTimeoutMs: 200, retryBudgetMs: 1500, ...options });
  logs.push(log);
  return log;
};
const waits = (): Promise<number> => commandCalls(pair.admin, 'wait');
const failure = async (p: Promise<unknown>): Promise<EventLogError> => {
  const e = await p.then(() => undefined, (x: unknown) => x);
  if (!(e instanceof EventLogError)) throw new Error(`expected an EventLogError, got ${String(e)}`);
  return e;
};

test('replicas: 1 with the replica up: acquire and append complete, each confirmed by a WAIT', async () => {
  const log = newLog({ replicas: 1 });
  const s = scope();
  const before = await waits();
  const { token } = await log.acquire(s, 60_000);
  await log.append(s, token, [created(s.responseId), delta(1)]);
  expect((await waits()) - before).toBe(3); // the acquire, the append, the append's confirmation mark
  expect((await log.read(s, undefined)).map((e) => e.sequence_number)).toEqual([0, 1]);
});

test('without replicas, no WAIT is sent', async () => {
  const log = newLog();
  const s = scope();
  const before = await waits();
  const { token } = await log.acquire(s, 60_000);
  await log.append(s, token, [created(s.responseId)]);
  expect((await waits()) - before).toBe(0);
});

test("replicas: 1 with the replica paused: the append does not complete and fails 'unavailable' past the budget; resumed, the same append completes, stored once", async () => {
  const log = newLog({ replicas: 1 });
  const s = scope();
  const { token } = await log.acquire(s, 60_000);
  await log.append(s, token, [created(s.responseId)]);
  pair.replica.child.kill('SIGSTOP');
  try {
    const e = await failure(log.append(s, token, [delta(1), delta(2)]));
    expect([e.reason, e.responseId]).toEqual(['unavailable', s.responseId]);
    expect(e.message).toMatch(/0 of 1 replicas confirmed/);
    expect(e.message).toMatch(/still failing after trying again for 1500 ms/);
    const other = scope();
    expect((await failure(log.acquire(other, 60_000))).reason).toBe('unavailable');
  } finally {
    pair.replica.child.kill('SIGCONT');
  }
  await log.append(s, token, [delta(1), delta(2)]);
  expect((await log.read(s, undefined)).map((e) => e.sequence_number)).toEqual([0, 1, 2]);
});
