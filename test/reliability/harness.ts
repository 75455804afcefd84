// Shared helpers of the reliability suite: seeded fast-check runs, outcome classification, prototype checks.
import fc from 'fast-check';
import type { Observable } from 'rxjs';
import { OpenAIRxError } from '../../lib/errors';

/** One seed for the whole suite: `FC_SEED=123 npx jest test/reliability` replays a failure. */
export const SEED = process.env['FC_SEED'] !== undefined ? Number(process.env['FC_SEED']) : 0x5eed;

/** fast-check parameters: the seed, and a failure message that starts with it. */
export function params<T>(numRuns: number): fc.Parameters<T> {
  return {
    seed: SEED,
    numRuns,
    reporter(details) {
      if (!details.failed) return;
      const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      throw new Error(`property failed with seed ${details.seed} (path ${details.counterexamplePath ?? 'n/a'}; replay: FC_SEED=${details.seed})\n${fc.defaultReportMessage(details)}\n${cause}`);
    },
  };
}

/** Keys a hostile payload may try to reach through. */
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

const CANARIES = ['polluted', 'text', 'itemId', 'done', 'args', 'item', 'kind', 'type', 'delta', 'id', 'status', 'content', 'output'];

/** Throws when a run left a property on a built-in prototype. */
export function assertNoPollution(): void {
  for (const proto of [Object.prototype, Array.prototype, Function.prototype, String.prototype, Map.prototype]) {
    for (const k of CANARIES) {
      if (Object.prototype.hasOwnProperty.call(proto, k)) {
        // Clean up so that one failure does not cascade into every later test.
        delete (proto as Record<string, unknown>)[k];
        throw new Error(`prototype polluted: ${proto === Object.prototype ? 'Object' : proto === Array.prototype ? 'Array' : 'other'}.prototype.${k}`);
      }
    }
  }
  if (({} as Record<string, unknown>)['polluted'] !== undefined) throw new Error('({}).polluted is defined');
}

export type Outcome<T> =
  | { readonly kind: 'complete'; readonly values: T[] }
  | { readonly kind: 'error'; readonly values: T[]; readonly error: unknown }
  | { readonly kind: 'pending'; readonly values: T[] };

/** Subscribes and reports what happened synchronously (sources made of arrays or strings finish at once). */
export function runSync<T>(o: Observable<T>): Outcome<T> {
  const values: T[] = [];
  let outcome: Outcome<T> | undefined;
  let thrown: unknown;
  try {
    o.subscribe({
      next: (v) => values.push(v),
      error: (error: unknown) => (outcome = { kind: 'error', values, error }),
      complete: () => (outcome = { kind: 'complete', values }),
    });
  } catch (e) {
    thrown = e;
  }
  if (thrown !== undefined) throw new Error(`subscribe threw synchronously: ${String(thrown)}`);
  return outcome ?? { kind: 'pending', values };
}

/** Subscribes and waits for the end (a hang shows up as the test's timeout). */
export function runAsync<T>(o: Observable<T>): Promise<Outcome<T>> {
  return new Promise((resolve) => {
    const values: T[] = [];
    o.subscribe({
      next: (v) => values.push(v),
      error: (error: unknown) => resolve({ kind: 'error', values, error }),
      complete: () => resolve({ kind: 'complete', values }),
    });
  });
}

/** The outcome is a completion or exactly one typed library error; anything else is a failure. */
export function assertTypedOutcome<T>(o: Outcome<T>, what: string): asserts o is Exclude<Outcome<T>, { kind: 'pending' }> {
  if (o.kind === 'pending') throw new Error(`${what}: neither completed nor errored (hang)`);
  if (o.kind === 'error' && !(o.error instanceof OpenAIRxError)) {
    const e = o.error;
    throw new Error(`${what}: untyped error ${e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e)}`);
  }
}

/** Collects `unhandledRejection`s during a block (there must be none). */
export function trackUnhandled(): { readonly seen: unknown[]; stop(): void } {
  const seen: unknown[] = [];
  const on = (r: unknown) => seen.push(r);
  process.on('unhandledRejection', on);
  return { seen, stop: () => process.off('unhandledRejection', on) };
}
