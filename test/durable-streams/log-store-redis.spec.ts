// eventLogStreamStore on a real redis-server (test/log/redis-server.ts): the shared suites with two redisEventLog
// instances, each with its own connections (as two processes would have), serving the same streams.
import { redisEventLog } from '../../lib/log/redis';
import { redisForSuite } from '../log/redis-server';
import { describeLogStreamStoreForks } from './log-store-fork-suite';
import { describeLogStreamStore } from './log-store-suite';

jest.setTimeout(60_000);

const redis = redisForSuite();

const twoLogs = async () => {
  const a = redisEventLog({ url: redis.server.url });
  const b = redisEventLog({ url: redis.server.url });
  return { a, b, cleanup: async () => void (await Promise.all([a.close(), b.close()])) };
};
describeLogStreamStore('a single Redis', twoLogs);
describeLogStreamStoreForks('a single Redis', twoLogs);
