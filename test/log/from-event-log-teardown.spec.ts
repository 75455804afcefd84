// Unsubscribing a reader stops what it waits on, there and then: the log's follow (a live reader) and a log's
// `wait` (a polled one, by its signal). Without it a stopped reader stayed among the log's followers, and its
// timer (up to pollMs) kept the process alive, until the stream's next event or the timer found it stopped.
import type { Subscription } from 'rxjs';
import { fromEventLog } from '../../lib/log/from-event-log';
import { memoryEventLog } from '../../lib/log/memory';
import type { EventLog, FollowHandlers, LogScope } from '../../lib/log/types';
import { created, delta } from './contract';
import { until } from './live-streams';

/** A live stream: two events stored, the producer still holding the lease (readers wait for more). */
async function liveStream(id: string): Promise<{ log: EventLog; s: LogScope }> {
  const log = memoryEventLog();
  const s = { responseId: id, owner: 'u' };
  const { token } = await log.acquire(s, 60_000);
  await log.append(s, token, [created(id), delta(1)]);
  return { log, s };
}

/** `log` with its methods bound, `follow` replaced (or removed: `undefined`) and `wait` seen. */
function wrapped(log: EventLog, follow: EventLog['follow'] | undefined, waits: AbortSignal[]): EventLog {
  return new Proxy(log, {
    get(target, key) {
      if (key === 'follow') return follow;
      if (key === 'wait') {
        return (s: LogScope, after: number | undefined, ms: number, signal?: AbortSignal) => {
          if (signal) waits.push(signal);
          return target.wait(s, after, ms, signal);
        };
      }
      const v: unknown = Reflect.get(target, key);
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** Subscribes and resolves once `n` events came. */
function reading(log: EventLog, id: string, n: number): Promise<{ sub: Subscription; seen: number[] }> {
  return new Promise((resolve, reject) => {
    const seen: number[] = [];
    const sub: Subscription = fromEventLog(log, id, { owner: 'u' }).subscribe({
      next: (e) => {
        seen.push(e.sequence_number as number);
        if (seen.length === n) resolve({ sub, seen });
      },
      error: reject,
    });
  });
}

test('a following reader leaves the follow as it is unsubscribed', async () => {
  const { log, s } = await liveStream('resp_teardown_follow');
  // A follow that hands nothing over (the memory log has none of its own): the stream has no more events.
  let following = 0;
  const follow = (_scope: LogScope, _after: number | undefined, _h: FollowHandlers): (() => void) => {
    following++;
    return () => void following--;
  };
  const { sub, seen } = await reading(wrapped(log, follow, []), s.responseId, 2);
  expect(seen).toEqual([0, 1]);
  await until(() => following === 1, 5000, () => `following ${following} times`);
  sub.unsubscribe();
  expect(following).toBe(0);
});

test("a polled reader's wait is aborted as it is unsubscribed", async () => {
  const { log, s } = await liveStream('resp_teardown_wait');
  const waits: AbortSignal[] = [];
  const { sub, seen } = await reading(wrapped(log, undefined, waits), s.responseId, 2);
  expect(seen).toEqual([0, 1]);
  await until(() => waits.length > 0, 5000, () => 'no wait');
  const waiting = waits[waits.length - 1]!;
  expect(waiting.aborted).toBe(false);
  sub.unsubscribe();
  expect(waiting.aborted).toBe(true);
});
