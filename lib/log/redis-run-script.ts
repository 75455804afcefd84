import type { Cluster, Redis } from 'ioredis';
import type { RedisConnections } from './redis-connection.js';
import { refusal } from './redis-refused.js';
import type { LogScope } from './types.js';

/** Runs one of the log's Lua scripts on the keys given (by default the scope's stream keys); resolves with its reply. */
export type RunScript = (script: string, scope: LogScope, args: (string | number)[], keys?: string[]) => Promise<string[]>;

/**
 * Runs scripts by their SHA, loading one (EVAL) when Redis does not know it (first use, restart, another node).
 * Each script's SHA is kept once Redis returned it, with the one SCRIPT LOAD per script under way or done.
 */
export function scriptRunner(conn: RedisConnections, keysOf: (scope: LogScope) => string[]): RunScript {
  const shas = new Map<string, string>();
  const loading = new Map<string, Promise<void>>();

  // The client, once known: the log's client never changes, so later calls need not wait a turn for it.
  let known: Redis | Cluster | undefined;

  return async (script, scope, args, keys = keysOf(scope)) => {
    conn.ensureOpen(scope);
    const c = known ?? (known = await conn.timed(conn.client(), scope));
    const call = async (): Promise<unknown> => {
      let sha = shas.get(script);
      if (sha === undefined) {
        const pending = loading.get(script);
        if (pending === undefined) {
          // The first call loads it, once, sent with its EVAL (no extra round trip before it).
          const load = (c.script('LOAD', script) as Promise<unknown>).then((v) => {
            shas.set(script, String(v));
          });
          loading.set(script, load);
          load.catch(() => loading.delete(script));
          return c.eval(script, keys.length, ...keys, ...args);
        }
        // The calls until its SHA is known wait for it (a burst of first calls would each send the whole script).
        await pending.catch(() => undefined);
        sha = shas.get(script);
        if (sha === undefined) return c.eval(script, keys.length, ...keys, ...args);
      }
      try {
        return await c.evalsha(sha, keys.length, ...keys, ...args);
      } catch (e) {
        if (!(e instanceof Error && e.message.startsWith('NOSCRIPT'))) throw e;
      }
      // Not known to this node (restarted, flushed, another Cluster node): EVAL caches it there again.
      return c.eval(script, keys.length, ...keys, ...args);
    };
    // A call the ACL refuses inside the script: named from the script's line (Redis 7.0 names only the line).
    const named = call().catch((e: unknown) => {
      throw refusal(e, scope, script) ?? e;
    });
    return (await conn.timed(named, scope, 2 * conn.timeoutMs)) as string[];
  };
}
