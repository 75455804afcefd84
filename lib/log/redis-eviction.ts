import type { Cluster, Redis } from 'ioredis';
import { isCluster } from './redis-connection.js';
import type { RedisLogSettings } from './redis-options.js';

// Every key of the log has an expiry (lib/log/redis-scripts.ts), so an eviction policy that may drop keys with
// one (volatile-*, or allkeys-*) can drop a live stream's events or meta under memory pressure: a stream that
// then fails as `corrupt`, or readers that miss events. The log looks at each master's policy once, at its
// first use, and warns (settings.warn) when it is one of those. INFO is not among the commands of the
// documented least-privilege user (docs/durable-log.md): a connection as a named user other than `default` is
// not asked (a refused command would stand in Redis's ACL LOG); a refused or failed INFO is skipped quietly.

/** The policies that can evict a key with an expiry. */
const EVICTS = /^(?:volatile|allkeys)-/;

/** The user a client authenticates as (`undefined`: the default user). */
function userOf(c: Redis | Cluster): string | undefined {
  const options = isCluster(c) ? c.options.redisOptions : c.options;
  return options?.username || undefined;
}

/** The check, run on the first client it is given (the log's client never changes); it never throws. */
export function evictionCheck(settings: Pick<RedisLogSettings, 'warn'>): (client: Redis | Cluster) => void {
  let done = false;
  return (client) => {
    if (done) return;
    done = true;
    const user = userOf(client);
    if (user !== undefined && user !== 'default') return;
    const nodes: Redis[] = isCluster(client) ? client.nodes('master') : [client];
    void Promise.all(
      nodes.map(async (node) => {
        try {
          const policy = /^maxmemory_policy:(\S+)/m.exec(await node.info('memory'))?.[1];
          return policy !== undefined && EVICTS.test(policy) ? { node: `${node.options.host ?? ''}:${node.options.port ?? ''}`, policy } : undefined;
        } catch {
          return undefined; // refused (no INFO for this user) or unreachable: nothing to say
        }
      }),
    ).then((found) => {
      const evicting = found.filter((f): f is { node: string; policy: string } => f !== undefined);
      if (evicting.length === 0) return;
      const where = evicting.map((f) => `${f.node} has maxmemory-policy ${f.policy}`).join(', ');
      settings.warn(
        `redisEventLog: Redis ${where}: under memory pressure it may evict the log's keys (every one has an expiry), ` +
          'dropping events of live streams (which then fail as corrupt) or whole streams. Set maxmemory-policy noeviction ' +
          '(a full Redis then refuses writes instead), or give the log a Redis of its own.',
      );
    });
  };
}
