import type { Cluster } from 'ioredis';
import { isCluster, type RedisConnections } from './redis-connection.js';
import type { RunScript } from './redis-run-script.js';
import type { SendScript } from './redis-script-send.js';
import { STATE } from './redis-scripts.js';
import { isolated, type Outcome, settle, type SlotBatcher, slotBatcher } from './redis-slot-batch.js';
import { groupByNode } from './redis-slot.js';
import type { LogScope, LogState } from './types.js';

// `state` of `redisEventLog`. The readers following streams check each stream's state when no news came for a
// while (fromEventLog's `pollMs`): with 1,000 readers of quiet streams, 1,000 STATE calls a second, each a script
// call of its own. The state calls of one turn (per hash slot on a Cluster) go as one call instead, and the
// readers' checks fall due together (lib/coarse-timer.ts).

/** Most streams one call reads: each is two commands in Redis (EXISTS, HMGET), the call blocks it while it runs. */
export const MAX_STATES = 500;

/**
 * STATE of several streams: KEYS are their meta keys. Per stream five elements: 'ok' (or '' when the stream
 * does not exist, the other four '' too), holder, until, end, last ('' for none); then Redis's clock, once.
 */
export const STATES = `
local out = {}
for j = 1, #KEYS do
  if redis.call('EXISTS', KEYS[j]) == 0 then
    out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4], out[#out + 5] = '', '', '', '', ''
  else
    local m = redis.call('HMGET', KEYS[j], 'holder', 'until', 'end', 'last')
    out[#out + 1], out[#out + 2], out[#out + 3], out[#out + 4], out[#out + 5] = 'ok', m[1] or '', m[2] or '', m[3] or '', m[4] or ''
  end
end
local t = redis.call('TIME')
out[#out + 1] = string.format('%d', tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000))
return out
`;

/** A stream's state from what STATE answers (after its 'ok'): a lease is live while its `until` is ahead of Redis's clock. */
function stateFrom(holder: string, until: string, endOf: string, last: string, now: string): LogState {
  const live = holder !== '' && until !== '' && Number(until) > Number(now);
  return {
    lastSequenceNumber: last === '' ? undefined : Number(last),
    end: endOf === '' ? undefined : (endOf as LogState['end']),
    lease: live ? { token: Number(holder), expiresAt: Number(until) } : undefined,
  };
}

/** What STATE answered, as the stream's state: `undefined` when it does not exist. */
const stateOfReply = (r: readonly string[]): LogState | undefined => (r.length === 0 ? undefined : stateFrom(r[1]!, r[2]!, r[3]!, r[4]!, r[5]!));

/** The stream's state (the STATE script): `undefined` when it does not exist. */
export async function stateOf(run: RunScript, scope: LogScope): Promise<LogState | undefined> {
  return stateOfReply(await run(STATE, scope, []));
}

interface StateCall {
  readonly scope: LogScope;
  /** The stream's meta key. */
  readonly key: string;
}

/**
 * The meta fields a Cluster's plain state read takes: the state's four, and two that say the stream exists when
 * they do not (a meta hash has `fence` from its first lease, `count` from its first events, `end` from a cancel).
 */
const FIELDS = ['holder', 'until', 'end', 'last', 'fence', 'count'] as const;

/**
 * On a Cluster, the state calls of a turn as plain reads: each node's `HMGET`s and one `TIME` (Redis's clock, for
 * the leases) in one pipeline. There each stream is in a slot of its own, so a script was a call per stream (some
 * 17 µs of Redis each, with 1,000 quiet readers 1,250 a second). A read that fails, or a node whose pipeline
 * does, goes as a lone STATE call (`one`: retried through a failover within the budget).
 */
function clusterStates(
  cluster: Cluster,
  timed: <T>(p: Promise<T>, scope: LogScope) => Promise<T>,
  one: (c: StateCall) => Promise<LogState | undefined>,
): (batch: readonly StateCall[]) => Promise<readonly Outcome<LogState | undefined>[]> {
  return async (batch) => {
    const byNode = groupByNode(cluster, [...batch.keys()], (k) => batch[k]!.key);
    const out = new Array<Outcome<LogState | undefined>>(batch.length);
    await Promise.all(
      [...byNode.values()].map(async (ks) => {
        let results: [Error | null, unknown][] | null = null;
        try {
          const p = cluster.pipeline();
          for (const k of ks) p.hmget(batch[k]!.key, ...FIELDS);
          p.time();
          results = await timed(p.exec(), batch[ks[0]!]!.scope);
        } catch {
          results = null;
        }
        const clock = results?.[ks.length];
        const now = clock !== undefined && clock[0] === null ? nowOf(clock[1] as string[]) : undefined;
        await Promise.all(
          ks.map(async (k, i) => {
            const r = results?.[i];
            if (r !== undefined && r[0] === null && now !== undefined) out[k] = { ok: true, value: stateOfFields(r[1] as (string | null)[], now) };
            else out[k] = await settle(one(batch[k]!));
          }),
        );
      }),
    );
    return out;
  };
}

/** Redis's clock in ms from what TIME answered (seconds, microseconds). */
const nowOf = (t: readonly string[]): string => String(Number(t[0]) * 1000 + Math.floor(Number(t[1]) / 1000));

/** A stream's state from its FIELDS: `undefined` when it has none of them (no meta: no stream). */
const stateOfFields = (m: readonly (string | null)[], now: string): LogState | undefined =>
  m.every((v) => v === null) ? undefined : stateFrom(m[0] ?? '', m[1] ?? '', m[2] ?? '', m[3] ?? '', now);

/**
 * `state` with the calls of one turn in one script call on a single Redis (at most MAX_STATES streams a call),
 * and on a Cluster as plain reads, each node's in one pipeline (clusterStates).
 */
export function batchedState(conn: RedisConnections, send: SendScript, metaKeyOf: (scope: LogScope) => string): (scope: LogScope) => Promise<LogState | undefined> {
  const many = async (batch: readonly StateCall[]): Promise<{ ok: true; value: LogState | undefined }[]> => {
    const r = (await send({ script: STATES, keys: batch.map((b) => b.key), args: [], durable: false }, batch[0]!.scope)) as string[];
    if (r.length !== 5 * batch.length + 1) throw new Error(`STATES answered ${r.length} elements for ${batch.length} streams`);
    const now = r[r.length - 1]!;
    return batch.map((_, k) => {
      const at = 5 * k;
      return { ok: true as const, value: r[at] === '' ? undefined : stateFrom(r[at + 1]!, r[at + 2]!, r[at + 3]!, r[at + 4]!, now) };
    });
  };
  const one = async (c: StateCall): Promise<LogState | undefined> => {
    return stateOfReply((await send({ script: STATE, keys: [c.key], args: [], durable: false }, c.scope)) as string[]);
  };
  const sendBatch = (batch: readonly StateCall[]) => isolated(batch, many, one);

  // Made once the client is known; the log's client never changes.
  let states: SlotBatcher<StateCall, LogState | undefined> | undefined;
  return async (scope) => {
    conn.ensureOpen(scope);
    if (states === undefined) {
      const c = await conn.timed(conn.client(), scope);
      const send = isCluster(c) ? clusterStates(c, (p, s) => conn.timed(p, s), one) : sendBatch;
      states ??= slotBatcher({ slot: undefined, cost: (_, totals) => void (totals[0]! += 1), max: [MAX_STATES], send });
    }
    // Failures as a lone call's (each stream's own, from `isolated`).
    return states.add({ scope, key: metaKeyOf(scope) });
  };
}
