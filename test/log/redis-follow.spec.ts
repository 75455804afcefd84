// The follow suite (redis-follow-suite.ts) as Redis's default user, on a redis-server of its own.
import { describeRedisFollow } from './redis-follow-suite';
import { redisForSuite } from './redis-server';

jest.setTimeout(60_000);

const redis = redisForSuite();
describeRedisFollow('the default user', () => ({ url: redis.server.url, admin: redis.admin, keyPrefix: '' }));
