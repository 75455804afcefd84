// How the log suites write down what a call did: `'ok'` (or its value) or `'<reason> <responseId>'` for an
// EventLogError, and how many scripts Redis ran (INFO commandstats), to count calls per batch.
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

/** Script calls (EVAL and EVALSHA) the Redis of `admin` has run so far. */
export const scriptCalls = async (admin: Redis): Promise<number> => {
  const info = await admin.info('commandstats');
  let calls = 0;
  for (const [, , c] of info.matchAll(/cmdstat_(evalsha|eval):calls=(\d+)/g)) calls += Number(c);
  return calls;
};
