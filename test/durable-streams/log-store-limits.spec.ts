// The log's per-stream limits (maxEvents, maxBytes) reached through the protocol: 413, the request stored nothing,
// the stream still served (never a 503, which clients retry for ever). On the memory log and a real redis-server.
import { createDurableStreamsHandler } from '../../lib/durable-streams/index';
import { memoryEventLog } from '../../lib/log/memory';
import { redisEventLog } from '../../lib/log/redis';
import type { EventLog } from '../../lib/log/types';
import { redisForSuite } from '../log/redis-server';
import { serve, type Served } from './handler-helpers';

jest.setTimeout(60_000);

const redis = redisForSuite();
const P = '/v1/stream/limited';
const json = { 'Content-Type': 'application/json' };

describe.each([
  ['the memory log', (limits: { maxEvents?: number; maxBytes?: number }) => memoryEventLog(limits)],
  ['a redis-server', (limits: { maxEvents?: number; maxBytes?: number }) => redisEventLog({ url: redis.server.url, keyPrefix: `limits-${Math.random()}:`, ...limits })],
])('eventLogStreamStore on %s, past the log’s limits', (_name, logWith) => {
  let log: EventLog;
  let s: Served;
  const start = async (limits: { maxEvents?: number; maxBytes?: number }): Promise<void> => {
    log = logWith(limits);
    s = await serve(createDurableStreamsHandler({ log }));
  };
  afterEach(async () => {
    await s.close();
    await log.close();
  });

  test('an append past maxEvents is a 413 that stored nothing; the stream reads and closes as before', async () => {
    await start({ maxEvents: 6 });
    expect((await s.send('PUT', P, json, '[1,2]')).status).toBe(201);
    const over = await s.send('POST', P, json, '[3,4,5,6,7,8]');
    expect(over.status).toBe(413);
    expect(over.text).toMatch(/size this server keeps per stream/);
    const read = await s.send('GET', `${P}?offset=-1`);
    expect(read.status).toBe(200);
    expect(JSON.parse(read.text)).toEqual([1, 2]);
    expect((await s.send('POST', P, json, '[3]')).status).toBe(204);
    const closed = await s.send('POST', P, { 'Stream-Closed': 'true' });
    expect(closed.status).toBe(204);
    expect(closed.headers['stream-closed']).toBe('true');
    expect(JSON.parse((await s.send('GET', `${P}?offset=-1`)).text)).toEqual([1, 2, 3]);
  });

  test('a create whose first entries are past maxBytes is a 413 and leaves no stream', async () => {
    await start({ maxBytes: 4096 });
    const r = await s.send('PUT', P, { 'Content-Type': 'text/plain' }, 'x'.repeat(8192));
    expect(r.status).toBe(413);
    expect((await s.send('HEAD', P)).status).toBe(404);
    expect((await s.send('PUT', P, { 'Content-Type': 'text/plain' }, 'small')).status).toBe(201);
  });
});
