// A reader that starts before its stream, following it: a check of the stream's state that was asked before the
// stream existed, and answered after the follow had handed over its first events, says "no stream" about a time
// before it started. That is not a stream that expired while it was read.
import { lastValueFrom, toArray } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { canFollow } from '../../lib/log/follow';
import { fromEventLog } from '../../lib/log/from-event-log';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog, LogScope, LogState } from '../../lib/log/types';
import { completed, created, delta } from './contract';
import { until } from './live-streams';
import { redisForSuite } from './redis-server';

jest.setTimeout(30_000);

const redis = redisForSuite();

test('a state check asked before the stream existed and answered after its first events came does not end the reader', async () => {
  const inner = redisEventLog({ url: redis.server.url, keyPrefix: `start-race-${process.pid}:` });
  const s: LogScope = { responseId: 'resp_start_race' };
  let calls = 0;
  let release: (() => void) | undefined;
  // The log (followable), but for its second state call of a missing stream: answered as of its asking, later.
  const log: EventLog = Object.assign(Object.create(inner) as EventLog, {
    async state(scope: LogScope): Promise<LogState | undefined> {
      const st = await inner.state(scope);
      if (st === undefined && ++calls === 2) await new Promise<void>((r) => (release = r));
      return st;
    },
  });
  expect(canFollow(log)).toBe(true);
  const reader = lastValueFrom(fromEventLog(log, s.responseId, { pollMs: 20, notFoundTimeoutMs: 10_000 }).pipe(toArray()));
  await until(() => release !== undefined, 5000, () => 'the check'); // the follow's check is on its way
  const { token } = await inner.acquire(s, 10_000);
  const events: ResponseStreamEvent[] = [created(s.responseId), delta(1)];
  await inner.append(s, token, events);
  await new Promise((r) => setTimeout(r, 50)); // the follow hands them over
  release!();
  await new Promise((r) => setTimeout(r, 50));
  const end = completed(s.responseId, 2);
  await inner.append(s, token, [end]);
  try {
    expect(await reader).toEqual([...events, end]);
  } finally {
    await inner.close();
  }
});
