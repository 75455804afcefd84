import type { Cluster, Redis } from 'ioredis';
import { sha1Hex } from '../sha1.js';
import type { RedisConnections } from './redis-connection.js';
import { refusal } from './redis-refused.js';
import { exhausted, withRetry } from './redis-retry.js';
import type { LogScope } from './types.js';

/** Runs one of the log's Lua scripts on the keys given (by default the scope's stream keys); resolves with its reply. */
export type RunScript = (script: string, scope: LogScope, args: (string | number)[], keys?: string[]) => Promise<string[]>;

/**
 * Runs scripts by their SHA (EVALSHA), sending one whole (EVAL, which caches it in Redis) on its first use
 * and whenever Redis does not know it (restarted, flushed, another Cluster node).
 */
export function scriptRunner(conn: RedisConnections, keysOf: (scope: LogScope) => string[], retryBudgetMs = 0): RunScript {
  /** The SHA-1 of each script an EVAL of this runner has cached in Redis: the calls after it go by it. */
  const shas = new Map<string, string>();
  /** The EVAL of a script not known by SHA yet, while under way: the calls until it answered wait for it. */
  const sending = new Map<string, Promise<void>>();

  // The client, once known: the log's client never changes, so later calls need not wait a turn for it.
  let known: Redis | Cluster | undefined;

  return async (script, scope, args, keys = keysOf(scope)) => {
    conn.ensureOpen(scope);
    const c = known ?? (known = await conn.timed(conn.client(), scope));
    const evaluate = (): Promise<unknown> => c.eval(script, keys.length, ...keys, ...args);
    const bySha = async (sha: string): Promise<unknown> => {
      try {
        return await c.evalsha(sha, keys.length, ...keys, ...args);
      } catch (e) {
        if (!(e instanceof Error && e.message.startsWith('NOSCRIPT'))) throw e;
      }
      // Not known to this node (restarted, flushed, another Cluster node): EVAL caches it there again.
      return evaluate();
    };
    const call = async (): Promise<unknown> => {
      const sha = shas.get(script);
      // Sent in this very turn, as every call not waiting for a first EVAL (a release not awaited precedes `close`).
      if (sha !== undefined) return bySha(sha);
      const pending = sending.get(script);
      if (pending !== undefined) {
        // A burst of first calls would each send the whole script: they wait for the first one.
        await pending;
        const now = shas.get(script);
        return now === undefined ? evaluate() : bySha(now);
      }
      // Sent whole (one round trip, as a call by SHA); once it answered, the calls after it go by SHA. The SHA
      // is computed here (not asked of Redis with SCRIPT LOAD: one command fewer for the ACL user), at once.
      const first = evaluate();
      const answered = first.then(
        () => void shas.set(script, sha1Hex(script)),
        () => undefined,
      );
      sending.set(script, answered);
      void answered.then(() => sending.delete(script));
      return first;
    };
    // A call the ACL refuses inside the script: named from the script's line (Redis 7.0 names only the line).
    const once = (): Promise<string[]> => {
      const named = call().catch((e: unknown) => {
        throw refusal(e, scope, script) ?? e;
      });
      return conn.timed(named, scope, 2 * conn.timeoutMs) as Promise<string[]>;
    };
    if (retryBudgetMs <= 0) return once();
    // Every script of the log can run twice to the same effect (lib/log/redis-retry.ts).
    try {
      return await withRetry(once, { budgetMs: retryBudgetMs, stopped: conn.isClosed });
    } catch (e) {
      throw exhausted(e, retryBudgetMs, scope);
    }
  };
}
