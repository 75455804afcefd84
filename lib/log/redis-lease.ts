import type { Cluster, Redis } from 'ioredis';
import { EventLogError } from '../errors.js';
import { eventLogErrorOf, isCluster, type RedisConnections, unavailable } from './redis-connection.js';
import { streamKeyBase } from './redis-keys.js';
import { ACQUIRE_MANY, leaseBatcher, RELEASE_MANY, RENEW_MANY } from './redis-lease-batch.js';
import type { RedisLogSettings } from './redis-options.js';
import type { RunScript } from './redis-run-script.js';
import { ACQUIRE, RELEASE, RENEW } from './redis-scripts.js';
import type { EventLog, Lease, LogScope } from './types.js';

// The producer's lease of `redisEventLog`: acquire, renew and release, each one script that checks (and
// bumps) the fencing token atomically. On a single Redis the calls of one event-loop turn, of any number of
// streams, go as one script call per kind (lib/log/redis-lease-batch.ts); each stream still gets its own
// result, so one stream's held or lapsed lease fails only that stream.

export const fenced = (scope: LogScope, token: number): EventLogError =>
  new EventLogError('fenced', `token ${token} does not hold the lease`, scope.responseId);

const lease = (r: string[]): Lease => ({ token: Number(r[1]), expiresAt: Number(r[2]) });

/** A one-stream reply ({'fenced'}, {'lease_held', until}) in the many-stream scripts' three elements. */
const three = (r: string[]): string[] => [r[0] ?? '', r[1] ?? '', r[2] ?? ''];

const ms = (leaseMs: number): number => Math.max(1, Math.round(leaseMs));

/** The lease calls; `flush` sends the ones waiting for their batch now (the log calls it before it closes). */
export function redisLease(conn: RedisConnections, run: RunScript, settings: RedisLogSettings): Pick<EventLog, 'acquire' | 'renew' | 'release'> & { flush(): void } {
  const { liveTtlMs, keyPrefix } = settings;

  // A batch of one runs the one-stream script on the stream's keys (as on a Cluster), with its arguments in
  // that script's order; a longer one the script for many, its streams named by their key bases.
  const keyed = (head: (string | number)[], batch: readonly { scope: LogScope; args: readonly (string | number)[] }[]): (string | number)[] => {
    const args = [...head];
    for (const b of batch) args.push(streamKeyBase(keyPrefix, b.scope), ...b.args);
    return args;
  };
  /** Acquires or renewals: three reply elements per stream, the one-stream script taking `liveTtlMs` last. */
  const granting = (one: string, many: string) =>
    leaseBatcher(3, async (batch) => {
      const first = batch[0]!;
      if (batch.length === 1) return three(await run(one, first.scope, [...first.args, liveTtlMs]));
      return run(many, first.scope, keyed([liveTtlMs], batch), []);
    });
  const acquires = granting(ACQUIRE, ACQUIRE_MANY);
  const renews = granting(RENEW, RENEW_MANY);
  // Releases are not awaited by a writer: they go at the end of the current job's microtasks (every stream
  // whose last append came back in the same reply releases in that job), so that a command this process sends
  // once it has awaited anything finds the lease released, as when each release was sent at once.
  const releases = leaseBatcher(
    0,
    async (batch) => {
      const first = batch[0]!;
      await (batch.length === 1 ? run(RELEASE, first.scope, [...first.args]) : run(RELEASE_MANY, first.scope, keyed([], batch), []));
      return [];
    },
    queueMicrotask,
  );

  // The client, once known: the log's client never changes, so later calls need not wait a turn for it.
  let known: Redis | Cluster | undefined;
  /** This stream's part of a batched call; a failed call fails each of its streams, each naming its own response. */
  const viaBatch = async (scope: LogScope, call: () => Promise<string[]>): Promise<string[] | undefined> => {
    conn.ensureOpen(scope);
    const c = known ?? (known = await conn.timed(conn.client(), scope));
    if (isCluster(c)) return undefined;
    try {
      return await call();
    } catch (e) {
      if (e instanceof EventLogError) throw e.responseId === scope.responseId ? e : eventLogErrorOf(e, scope.responseId);
      throw unavailable(e, scope);
    }
  };

  return {
    async acquire(scope, leaseMs) {
      const r = (await viaBatch(scope, () => acquires.add(scope, [ms(leaseMs)]))) ?? (await run(ACQUIRE, scope, [ms(leaseMs), liveTtlMs]));
      if (r[0] === 'lease_held') throw new EventLogError('lease_held', 'another producer holds the lease', scope.responseId);
      return lease(r);
    },

    async renew(scope, token, leaseMs) {
      const r = (await viaBatch(scope, () => renews.add(scope, [token, ms(leaseMs)]))) ?? (await run(RENEW, scope, [token, ms(leaseMs), liveTtlMs]));
      if (r[0] === 'fenced') throw fenced(scope, token);
      return lease(r);
    },

    async release(scope, token) {
      if ((await viaBatch(scope, () => releases.add(scope, [token]))) === undefined) await run(RELEASE, scope, [token]);
    },

    flush() {
      releases.flush();
      acquires.flush();
      renews.flush();
    },
  };
}
