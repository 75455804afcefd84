// The warm-up objects: the one place where the package keeps anything alive between streams for speed.
//
// V8 collects the hidden classes (maps) of a stream's objects once none of them is alive (a full GC between two
// streams of a service that is otherwise idle), and with them the optimised code that checks for those maps: the
// next stream then runs its whole per-event chain (decoder, RxJS subscribers, operators) unoptimised until
// TurboFan has compiled it again. One idle instance of each hot piece, kept here, keeps the maps and the code
// alive (docs/performance.md, "Warm-up objects"; bench/RESULTS.md has the measures).
//
// Nothing runs at import (package.json "sideEffects": false): each piece makes its warm-up object the first
// time it is used (`keepWarm`), and `configure({ warmUp: false })` turns them off and lets go of those made.
// No warm-up object holds any of a user's data.
import { oneOf } from './options.js';

/** The package's global options (one today). */
export interface ConfigureOptions {
  /**
   * Keep one idle instance of each hot piece (decoder, body reader, relay, operators) and one content-free
   * skeleton per event type alive between streams, so that a stream after a full GC runs optimised code from its
   * first event. Default `true`. `false` makes none from then on and lets go of those already made (a
   * process that streams rarely, or a leak check that wants nothing of the package alive after a stream).
   */
  readonly warmUp?: boolean;
}

let enabled = true;
const kept = new Map<string, object | undefined>();

/**
 * Sets the package's global options. Only the options given change.
 *
 * ```ts
 * import { configure } from 'openai-rx';
 *
 * configure({ warmUp: false });
 * ```
 */
export function configure(options: ConfigureOptions): void {
  const warmUp = oneOf('warmUp', options.warmUp, [true, false]);
  if (warmUp === undefined) return;
  enabled = warmUp;
  if (enabled) return;
  const made = [...kept.values()];
  kept.clear();
  for (const m of made) release(m);
}

function release(made: object | undefined): void {
  const end = (made as { unsubscribe?: unknown } | undefined)?.unsubscribe;
  if (typeof end === 'function') end.call(made);
}

/**
 * @internal The warm-up object `name`: made by `make` on the first call (never at import), then kept; `undefined`
 * when warm-ups are off, or while `make` runs (it may use the piece that asked again: that call gets nothing).
 */
export function keepWarm<T extends object>(name: string, make: () => T): T | undefined {
  if (!enabled) return undefined;
  if (kept.has(name)) return kept.get(name) as T | undefined;
  kept.set(name, undefined);
  let made: T | undefined;
  try {
    made = make();
  } catch {
    // Only speed is lost: the stream that asked goes on (the name stays, so it is not tried again).
    return undefined;
  }
  // `configure({ warmUp: false })` inside `make` leaves nothing behind.
  if (enabled && kept.has(name)) {
    kept.set(name, made);
    return made;
  }
  release(made);
  return undefined;
}

/** @internal The names of the warm-up objects made so far: for tests. */
export function warmedUp(): readonly string[] {
  return [...kept.keys()];
}
