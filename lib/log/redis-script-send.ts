import type { Cluster, Redis } from 'ioredis';
import { EventLogError } from '../errors.js';
import { sha1Hex } from '../sha1.js';
import { isCluster, type RedisConnections, unavailable } from './redis-connection.js';
import type { RedisLogSettings } from './redis-options.js';
import { refusal } from './redis-refused.js';
import { exhausted, isTransient, withRetry } from './redis-retry.js';
import { groupByNode } from './redis-slot.js';
import type { LogScope } from './types.js';

// How the write path's scripts (appends, lease calls) reach Redis. On a single Redis, each call goes at once on
// the one connection (ioredis writes the calls of a turn back to back). On a Cluster, the calls of one turn are
// grouped by the node serving their slot and each node's go as one pipeline: one round trip per node, not per
// stream. With `replicas`, a durable call is followed by `WAIT replicas replicaTimeoutMs` on the same connection
// (in the same pipeline: the same node), and counts as done only once that many replicas confirmed it.
// Transient failures (a failover's MOVED or closed connection, too few replicas) are tried again within the
// retry budget; every script sent here can run twice to the same effect.

/** One script call: its keys (every key the script touches, all of one Cluster slot) and arguments. */
export interface ScriptCall {
  readonly script: string;
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  /** Counts as done only once `replicas` replicas confirmed it (appends, acquires). */
  readonly durable: boolean;
}

/**
 * Runs `call` and resolves with the script's reply. Rejects with `EventLogError('unavailable')` past the
 * retry budget, `EventLogError('forbidden')` for an ACL refusal, or Redis's own error for anything else (a
 * script that failed: the caller says what of its streams that means).
 */
export type SendScript = (call: ScriptCall, scope: LogScope) => Promise<unknown>;

/** Hooks of the log's start: `first` is told of the client once a call has answered (the eviction check). */
export interface SenderHooks {
  readonly first?: (client: Redis | Cluster) => void;
}

/**
 * Each script's SHA-1, computed here (at once, on its first use) rather than asked of Redis: no SCRIPT LOAD
 * for the ACL user. One per log, not per module: nothing of the package is kept between logs.
 */
class ScriptNames {
  private readonly digests = new Map<string, string>();
  private readonly ids = new Map<string, number>();

  sha(script: string): string {
    let sha = this.digests.get(script);
    if (sha === undefined) this.digests.set(script, (sha = sha1Hex(script)));
    return sha;
  }

  /** A short name of each script, for the set of what each node has cached. */
  id(script: string): number {
    let id = this.ids.get(script);
    if (id === undefined) this.ids.set(script, (id = this.ids.size));
    return id;
  }
}

interface Queued {
  readonly call: ScriptCall;
  /** `names.id(call.script)`. */
  readonly id: number;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
}

const isNoScript = (e: unknown): boolean => e instanceof Error && e.message.startsWith('NOSCRIPT');

/** Too few replicas confirmed: a transient failure (isTransient matches 'replicas confirmed'). */
const tooFew = (got: number, want: number, ms: number): Error => new Error(`only ${got} of ${want} replicas confirmed the write within ${ms} ms`);

export function scriptSender(conn: RedisConnections, settings: RedisLogSettings, hooks: SenderHooks = {}): SendScript {
  const { replicas, replicaTimeoutMs, retryBudgetMs } = settings;
  /** `<node> <id>`: the scripts an EVAL of this log has cached on each node (the calls after it go by SHA). */
  const loaded = new Set<string>();
  const names = new ScriptNames();
  let known: Redis | Cluster | undefined;
  let told = false;
  const waits = (call: ScriptCall): boolean => call.durable && replicas > 0;

  /** EVALSHA once this node has the script from us, else EVAL (which caches it there), on `target`. */
  const evalOn = (target: Redis | ReturnType<Cluster['pipeline']>, node: string, q: Queued, whole: boolean): unknown => {
    const { script, keys, args } = q.call;
    const id = `${node} ${q.id}`;
    if (!whole && loaded.has(id)) return target.evalsha(names.sha(script), keys.length, ...keys, ...args);
    loaded.add(id); // ordered on this connection: the calls written after it find the script
    return target.eval(script, keys.length, ...keys, ...args);
  };

  // ---- single Redis: at once, on the one connection; WAIT right after it when durable ----
  const single = async (c: Redis, q: Queued, whole = false): Promise<unknown> => {
    const reply = evalOn(c, '', q, whole) as Promise<unknown>;
    const confirmed = waits(q.call) ? c.wait(replicas, replicaTimeoutMs) : undefined;
    confirmed?.catch(() => undefined);
    let r: unknown;
    try {
      r = await reply;
    } catch (e) {
      if (!isNoScript(e) || whole) throw e;
      loaded.delete(` ${q.id}`); // restarted or flushed: EVAL caches it again
      return single(c, q, true);
    }
    if (confirmed !== undefined) {
      const got = await confirmed;
      if (got < replicas) throw tooFew(got, replicas, replicaTimeoutMs);
    }
    return r;
  };

  // ---- Cluster: the calls of a turn, one pipeline per node ----
  let queue: { q: Queued; whole: boolean }[] = [];
  const flush = (cluster: Cluster): void => {
    const all = queue;
    queue = [];
    // Before the client knows the slots' nodes, each slot's calls go as a pipeline of their own.
    for (const [node, group] of groupByNode(cluster, all, (item) => item.q.call.keys[0] ?? '')) {
      const p = cluster.pipeline();
      for (const { q, whole } of group) evalOn(p, node, q, whole);
      const durable = group.some(({ q }) => waits(q.call));
      if (durable) p.wait(replicas, replicaTimeoutMs);
      p.exec().then(
        (results) => {
          const confirmed = durable ? results?.[group.length] : undefined;
          group.forEach(({ q, whole }, k) => {
            const [e, r] = results?.[k] ?? [new Error('Redis answered no reply for a pipelined call'), undefined];
            if (e) {
              if (isNoScript(e) && !whole) {
                loaded.delete(`${node} ${q.id}`);
                return enqueue(cluster, q, true);
              }
              return q.reject(e);
            }
            if (waits(q.call) && confirmed !== undefined) {
              const [we, got] = confirmed;
              if (we) return q.reject(we);
              if ((got as number) < replicas) return q.reject(tooFew(got as number, replicas, replicaTimeoutMs));
            }
            q.resolve(r);
          });
        },
        (e: unknown) => {
          for (const { q } of group) q.reject(e);
        },
      );
    }
  };
  const enqueue = (cluster: Cluster, q: Queued, whole = false): void => {
    if (queue.length === 0) queueMicrotask(() => flush(cluster));
    queue.push({ q, whole });
  };

  /** One try, bounded in time (a WAIT may take replicaTimeoutMs on top of the command's own). */
  const once = async (c: Redis | Cluster, call: ScriptCall, id: number, scope: LogScope): Promise<unknown> => {
    const ms = 2 * conn.timeoutMs + (waits(call) ? replicaTimeoutMs : 0);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new EventLogError('unavailable', `Redis did not answer within ${ms} ms`, scope.responseId)), ms);
    });
    const reply = new Promise<unknown>((resolve, reject) => {
      const q: Queued = { call, id, resolve, reject };
      if (isCluster(c)) enqueue(c, q);
      else single(c, q).then(resolve, reject);
    });
    try {
      return await Promise.race([reply, late]);
    } catch (e) {
      // A call the ACL refuses inside the script: named from the script's line.
      throw refusal(e, scope, call.script) ?? e;
    } finally {
      clearTimeout(timer);
      reply.catch(() => undefined);
    }
  };

  return async (call, scope) => {
    conn.ensureOpen(scope);
    const c = known ?? (known = await conn.timed(conn.client(), scope));
    const id = names.id(call.script);
    const attempt = (): Promise<unknown> => once(c, call, id, scope);
    let r: unknown;
    try {
      r =
        retryBudgetMs <= 0
          ? await attempt()
          : await withRetry(attempt, {
              budgetMs: retryBudgetMs,
              stopped: conn.isClosed,
              // A redirection or a lost node: the slots may have moved (a promoted replica); learn where to.
              onRetry: (e) => {
                if (isCluster(c) && !/replicas confirmed/.test(e instanceof Error ? e.message : String(e))) c.refreshSlotsCache();
              },
            });
    } catch (e) {
      if (!isTransient(e)) throw e;
      throw retryBudgetMs > 0 ? exhausted(e, retryBudgetMs, scope) : unavailable(e, scope);
    }
    if (!told) {
      told = true;
      hooks.first?.(c);
    }
    return r;
  };
}
