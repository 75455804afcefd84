// Issue 15: "Cancelling is explicit (cancelResponse = POST /responses/{id}/cancel upstream, and the log closed
// as cancelled so every reader ends)". Here the stream is cancelled while a reader that took it over is
// continuing it upstream and another reader follows the log: every reader must end as a cancelled stream
// ends (fromEventLog: "completes after its stored events"), the taker included, and the log stays cancelled.
import { fromEventLog } from '../../lib/log/from-event-log';
import type { EventLog } from '../../lib/log/types';
import { recording } from '../helpers/fixtures';
import { collect, crashedProducer, sleep, stallCreate, takeoverStores, takeoverSuite, untilLapsed } from './takeover-helpers';

jest.setTimeout(60_000);

const { sse, recorded, responseId } = recording('long-text');
const CRASH_AT = 20;

const suite = takeoverSuite({
  transcripts: { memory: sse, redis: sse },
  chunkDelayMs: 10, // the continuation is still going when the cancel comes
  faults: stallCreate(() => CRASH_AT + 1),
});

describe.each(takeoverStores(() => suite.redis.url))('%s log', (store, open) => {
  // A taker fenced off by a cancel ends like every other reader of a cancelled stream (completion), not with
  // EventLogError('fenced').
  test('a cancel during a takeover ends the taker and the follower alike (completion), and the log stays cancelled', async () => {
    const log: EventLog = open();
    const owner = `cancel_${store}`;
    const s = { responseId, owner };
    try {
      await crashedProducer(log, suite.provider.baseURL, store, s, CRASH_AT, 500);
      await untilLapsed(log, s);
      const cfg = { baseURL: suite.provider.baseURL, apiKey: 'sk-test' };
      const taker = collect(fromEventLog(log, responseId, { owner, upstream: cfg, leaseMs: 30_000 }));
      for (let i = 0; ((await log.state(s))?.lastSequenceNumber ?? 0) < CRASH_AT + 40; i++) {
        if (i > 3000) throw new Error('the takeover never got going');
        await sleep(10);
      }
      const follower = collect(fromEventLog(log, responseId, { owner, upstream: cfg, leaseMs: 30_000 }));
      await sleep(50);
      await log.cancel(s);
      const [t, f] = await Promise.all([taker, follower]);
      const stored = await log.read(s, undefined);
      expect(await log.state(s)).toMatchObject({ end: 'cancelled' });
      expect(stored).toEqual(recorded.slice(0, stored.length));
      expect(f.error).toBeUndefined();
      expect(f.events).toEqual(stored);
      expect(t.error).toBeUndefined();
      expect(t.events).toEqual(recorded.slice(0, t.events.length));
      expect(t.events.length).toBeGreaterThanOrEqual(stored.length);
    } finally {
      await log.close();
    }
  });
});
