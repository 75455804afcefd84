import { EventLogError } from '../errors.js';
import { randomHex } from '../random-hex.js';
import { isCluster, type RedisConnections } from './redis-connection.js';
import { corrupt } from './redis-corrupt.js';
import { type LeaseCall, leaseSender, MAX_STREAMS } from './redis-lease-batch.js';
import { ACQUIRE, RELEASE, RENEW } from './redis-lease-scripts.js';
import type { RedisLogSettings } from './redis-options.js';
import type { SendScript } from './redis-script-send.js';
import { asStreamError, type SlotBatcher, slotBatcher } from './redis-slot-batch.js';
import { slotOf } from './redis-slot.js';
import type { EventLog, Lease, LogScope } from './types.js';

// The producer's lease of `redisEventLog`: acquire, renew and release, each a script that checks (and bumps)
// the fencing token atomically. The calls of one event-loop turn, of any number of streams, go as one script
// call per kind (per hash slot on a Cluster: lib/log/redis-lease-batch.ts); each stream still gets its own
// result, so one stream's held, lapsed or corrupt lease fails only that stream. An acquire carries a claim
// (random), so that the same acquire tried again after a lost reply gets its own lease back.

export const fenced = (scope: LogScope, token: number): EventLogError =>
  new EventLogError('fenced', `token ${token} does not hold the lease`, scope.responseId);

const ms = (leaseMs: number): number => Math.max(1, Math.round(leaseMs));

/** A random claim: 16 bytes, hex. */
const newClaim = (): string => randomHex(16);

/** A stream's three reply elements as a lease, or the failure they say. */
function leaseOf(scope: LogScope, r: readonly string[], token?: number): Lease {
  if (r[0] === 'ok') return { token: Number(r[1]), expiresAt: Number(r[2]) };
  if (r[0] === 'lease_held') throw new EventLogError('lease_held', 'another producer holds the lease', scope.responseId);
  if (r[0] === 'corrupt') throw corrupt(scope, r[1] ?? '', r[2] ?? '');
  throw fenced(scope, token ?? 0);
}

/** The lease calls; `flush` sends the ones waiting for their batch now (the log calls it before it closes). */
export function redisLease(
  conn: RedisConnections,
  send: SendScript,
  keysOf: (scope: LogScope) => string[],
  settings: RedisLogSettings,
): Pick<EventLog, 'acquire' | 'renew' | 'release'> & { flush(): void } {
  const { liveTtlMs } = settings;
  const acquireBatch = leaseSender(send, ACQUIRE, [liveTtlMs], true);
  const renewBatch = leaseSender(send, RENEW, [liveTtlMs], false);
  const releaseBatch = leaseSender(send, RELEASE, [], false);

  // Made once the client is known (a Cluster's calls are grouped per slot); the log's client never changes.
  let batchers: { acquires: SlotBatcher<LeaseCall, string[]>; renews: SlotBatcher<LeaseCall, string[]>; releases: SlotBatcher<LeaseCall, string[]> } | undefined;
  const make = async (scope: LogScope): Promise<NonNullable<typeof batchers>> => {
    const c = await conn.timed(conn.client(), scope);
    if (batchers !== undefined) return batchers;
    const slot = isCluster(c) ? (b: LeaseCall) => slotOf(b.keys[0]!) : undefined;
    const of = (sendBatch: typeof acquireBatch, soon?: (f: () => void) => void) => slotBatcher({ slot, cost: (_, totals) => void (totals[0]! += 1), max: [MAX_STREAMS], send: sendBatch, soon });
    batchers = {
      acquires: of(acquireBatch),
      renews: of(renewBatch),
      // Releases are not awaited by a writer: they go at the end of the current job's microtasks (every stream
      // whose last append came back in the same reply releases in that job), so that a command this process
      // sends once it has awaited anything finds the lease released, as when each release was sent at once.
      releases: of(releaseBatch, queueMicrotask),
    };
    return batchers;
  };

  /** This stream's reply from its kind's batch; a failed call fails each of its streams, each naming its own response. */
  const viaBatch = async (kind: 'acquires' | 'renews' | 'releases', scope: LogScope, args: (string | number)[]): Promise<string[]> => {
    conn.ensureOpen(scope);
    const b = batchers ?? (await make(scope));
    try {
      return await b[kind].add({ scope, keys: keysOf(scope), args });
    } catch (e) {
      throw asStreamError(e, scope);
    }
  };

  return {
    async acquire(scope, leaseMs) {
      return leaseOf(scope, await viaBatch('acquires', scope, [ms(leaseMs), newClaim()]));
    },

    async renew(scope, token, leaseMs) {
      return leaseOf(scope, await viaBatch('renews', scope, [token, ms(leaseMs)]), token);
    },

    async release(scope, token) {
      const r = await viaBatch('releases', scope, [token]);
      if (r[0] === 'corrupt') throw corrupt(scope, r[1] ?? '', r[2] ?? '');
    },

    flush() {
      if (batchers === undefined) return;
      batchers.releases.flush();
      batchers.acquires.flush();
      batchers.renews.flush();
    },
  };
}
