// How the log suites write down what a call did: `'ok'` (or its value) or `'<reason> <responseId>'` for an
// EventLogError, and how many scripts (or other commands) Redis ran (INFO commandstats), to count calls per batch.
import type { Redis } from 'ioredis';
import { EventLogError } from '../../lib/errors';

const failure = (e: unknown): string => (e instanceof EventLogError ? `${e.reason} ${e.responseId}` : `other ${String(e)}`);

/** `'ok'` when `p` resolves, else its failure as `'<reason> <responseId>'`. */
export const outcome = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return 'ok';
  } catch (e) {
    return failure(e);
  }
};

/** `p`'s value, or its failure as `'<reason> <responseId>'`. */
export const valueOrFailure = async <T>(p: Promise<T>): Promise<T | string> => {
  try {
    return await p;
  } catch (e) {
    return failure(e);
  }
};

/** Calls of the commands `cmds` (lower case, as INFO names them) the Redis of `admin` has run so far, together. */
export const commandCalls = async (admin: Redis, ...cmds: string[]): Promise<number> => {
  const info = await admin.info('commandstats');
  let calls = 0;
  for (const [, cmd, c] of info.matchAll(/cmdstat_([\w|]+):calls=(\d+)/g)) if (cmds.includes(cmd!)) calls += Number(c);
  return calls;
};

/** Script calls (EVAL and EVALSHA) the Redis of `admin` has run so far. */
export const scriptCalls = (admin: Redis): Promise<number> => commandCalls(admin, 'evalsha', 'eval');
