// Issue 15, takeover by a reader whose cursor is ahead of the log. persistTo passes each event on at once,
// before it is durable, so a client that got events straight from the producer (e.g. through a gateway) can
// hold a cursor past what the log stored when the producer dies. Reconnecting elsewhere with that cursor and
// `upstream`, it takes the stream over; the continuation must start after the LOG's last stored event (as the
// issue says: `retrieveResponseStream(id, { startingAfter: last stored })`), so that the log ends whole, with
// no gap, for every other reader, while this reader still gets only the events after its own cursor.
import { lastValueFrom, toArray } from 'rxjs';
import { streamResponse } from '../../lib/http/transports';
import { fromEventLog } from '../../lib/log/from-event-log';
import type { EventLog } from '../../lib/log/types';
import { persistTo } from '../../operators/persistTo';
import { recording } from '../helpers/fixtures';
import { collect, crashingView, sleep, stallCreate, takeoverStores, takeoverSuite, untilLapsed } from './takeover-helpers';

jest.setTimeout(60_000);

const { sse, recorded, responseId } = recording('long-text');
const DURABLE = 10; // the producer's appends stop being acknowledged after this sequence number
const PASSED = 30; // ...while it passes events on up to this one

const suite = takeoverSuite({ transcripts: { memory: sse, redis: sse }, chunkDelayMs: 1, faults: stallCreate(() => PASSED + 1) });

describe.each(takeoverStores(() => suite.redis.url))('%s log', (store, open) => {
  // A reader ahead of the log (persistTo passes events on before they are durable) that takes over continues
  // upstream after the log's last stored event, not after its own cursor: the log ends whole.
  test('a reader reconnecting with a cursor past the stored events takes over from the log\'s last stored event: the log ends whole, the reader gets only what follows its cursor', async () => {
    const log: EventLog = open();
    const owner = `cursor_${store}`;
    const s = { responseId, owner };
    try {
      // The producer: its appends after DURABLE never complete (it dies with them in flight), its release is lost.
      const crashing = crashingView(log);
      const dying: EventLog = {
        ...crashing.log,
        append: async (scope, token, events) => {
          const fresh = events.filter((e) => (e.sequence_number as number) <= DURABLE);
          if (fresh.length > 0) await log.append(scope, token, fresh);
          if (fresh.length < events.length) await new Promise<never>(() => undefined);
        },
      };
      const client: Array<Record<string, unknown>> = [];
      const producer = streamResponse({ model: store, input: 'count', background: true }, { baseURL: suite.provider.baseURL, apiKey: 'sk-test' })
        .pipe(persistTo(dying, { owner, leaseMs: 60_000, maxBatchDelayMs: 0, maxBatchSize: 1 }))
        .subscribe({ next: (e) => client.push(e as unknown as Record<string, unknown>), error: () => undefined });
      // The crash comes once the client has PASSED and the log holds DURABLE (its appends up to there acknowledged:
      // on a busy machine the client can be ahead of them).
      for (let i = 0; client.length < PASSED + 1 || (await log.state(s))?.lastSequenceNumber !== DURABLE; i++) {
        if (i > 3000) throw new Error(`the client got ${client.length} events, the log holds up to ${(await log.state(s))?.lastSequenceNumber}`);
        await sleep(10);
      }
      producer.unsubscribe(); // the crash, just after a last renewal of 1 s
      await log.renew(s, crashing.token(), 1000);
      expect(client).toEqual(recorded.slice(0, PASSED + 1));
      expect((await log.state(s))?.lastSequenceNumber).toBe(DURABLE);
      await untilLapsed(log, s);

      // The client reconnects with its cursor and upstream, and takes the stream over.
      const before = suite.provider.requests.filter((r) => r.route === 'responses.stream').length;
      const resumed = await collect(fromEventLog(log, responseId, { owner, startingAfter: PASSED, upstream: { baseURL: suite.provider.baseURL, apiKey: 'sk-test' }, leaseMs: 30_000 }));
      expect(resumed.error).toBeUndefined();
      expect(resumed.events).toEqual(recorded.slice(PASSED + 1));
      // The log is whole: no gap between what the producer stored and what the takeover appended.
      expect(await log.read(s, undefined)).toEqual(recorded);
      expect(await lastValueFrom(fromEventLog(log, responseId, { owner }).pipe(toArray()))).toEqual(recorded);
      const continued = suite.provider.requests.filter((r) => r.route === 'responses.stream').slice(before);
      expect(continued.map((r) => r.query['starting_after'])).toEqual([String(DURABLE)]);
    } finally {
      await log.close();
    }
  });
});
