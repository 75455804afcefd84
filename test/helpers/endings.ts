// How a recorded stream must end, read from the transcript itself (not from the decoder), and a way to run
// an Observable over it that fails the test when it ends any other way. Resolving on any error would let an
// operator that errors at the terminal event, after correct values, pass.
import type { Observable } from 'rxjs';
import { ResponseStreamError } from '../../lib/errors';
import { payloads } from './fixtures';

export type Ending =
  | { readonly kind: 'complete' }
  /** `response.failed` or `error` in the transcript: a ResponseStreamError naming that event type. */
  | { readonly kind: 'error'; readonly eventType: string };

/** A Responses transcript completes unless it carries `response.failed` or an `error` event (the first one ends it). */
export function responsesEnding(sse: string): Ending {
  const failure = payloads(sse).find((p) => p['type'] === 'response.failed' || p['type'] === 'error');
  return failure === undefined ? { kind: 'complete' } : { kind: 'error', eventType: failure['type'] as string };
}

/** Whether `error` is the one `ending` says (a ResponseStreamError for the failing event's type). */
export function isExpectedError(error: unknown, ending: Ending): boolean {
  return ending.kind === 'error' && error instanceof ResponseStreamError && error.eventType === ending.eventType;
}

const describe = (e: unknown) => (e instanceof Error ? `${e.name} (${String((e as { code?: unknown }).code)}): ${e.message}` : String(e));

/**
 * Every value of `o`, once it ends as `ending` says: completion for a transcript that completes, the
 * transcript's ResponseStreamError for one that fails. Any other ending rejects, naming what happened.
 */
export function valuesToEnd<T>(o: Observable<T>, ending: Ending): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const values: T[] = [];
    o.subscribe({
      next: (v) => values.push(v),
      error: (e: unknown) =>
        isExpectedError(e, ending)
          ? resolve(values)
          : reject(new Error(`expected ${ending.kind === 'complete' ? 'completion' : `a ResponseStreamError for ${ending.eventType}`}, got ${describe(e)} after ${values.length} values`)),
      complete: () =>
        ending.kind === 'complete' ? resolve(values) : reject(new Error(`expected a ResponseStreamError for ${ending.eventType}, got completion after ${values.length} values`)),
    });
  });
}
