import { EventLogError } from '../errors.js';
import { ACQUIRE, RELEASE, RENEW } from './redis-scripts.js';
import type { RedisLogSettings } from './redis-options.js';
import type { RunScript } from './redis-run-script.js';
import type { EventLog, Lease, LogScope } from './types.js';

// The producer's lease of `redisEventLog`: acquire, renew and release, each one script that checks (and
// bumps) the fencing token atomically.

export const fenced = (scope: LogScope, token: number): EventLogError =>
  new EventLogError('fenced', `token ${token} does not hold the lease`, scope.responseId);

const lease = (r: string[]): Lease => ({ token: Number(r[1]), expiresAt: Number(r[2]) });

export function redisLease(run: RunScript, settings: RedisLogSettings): Pick<EventLog, 'acquire' | 'renew' | 'release'> {
  const { liveTtlMs } = settings;
  return {
    async acquire(scope, leaseMs) {
      const r = await run(ACQUIRE, scope, [Math.max(1, Math.round(leaseMs)), liveTtlMs]);
      if (r[0] === 'lease_held') throw new EventLogError('lease_held', 'another producer holds the lease', scope.responseId);
      return lease(r);
    },

    async renew(scope, token, leaseMs) {
      const r = await run(RENEW, scope, [token, Math.max(1, Math.round(leaseMs)), liveTtlMs]);
      if (r[0] === 'fenced') throw fenced(scope, token);
      return lease(r);
    },

    async release(scope, token) {
      await run(RELEASE, scope, [token]);
    },
  };
}
