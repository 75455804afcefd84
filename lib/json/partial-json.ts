import { JsonTextError } from '../errors.js';
import { positiveInt } from '../options.js';
import { JsonScanner } from './json-scanner.js';
import { CREDIT_PER_CHARACTER, CREDIT_PER_WRITE, PartialValueBuilder } from './partial-value.js';

/** Limits of the incremental JSON parser (`partialJson`, `createPartialJsonParser`). */
export interface PartialJsonOptions {
  /** Deepest nesting of arrays and objects accepted (default 512, as common parsers): deeper text is a JsonTextError. */
  readonly maxDepth?: number;
}

/** An incremental JSON parser: fed the text piece by piece, it shows the value parsed so far. */
export interface PartialJsonParser {
  /** Feeds the next piece of the text (only the new characters). Returns true when the value shown changed. */
  write(chunk: string): boolean;
  /** The value so far (undefined until something can be shown); a new object along the changed path on each change, unchanged branches shared. */
  readonly value: unknown;
  /** Ends the text: the final value (deep-equal to JSON.parse of the whole text), or throws JsonTextError. */
  end(): unknown;
  /** Container entries copied so far to show changes: bounded by a constant times the characters written (for tests and benchmarks). */
  readonly copiedSlots: number;
}

export const DEFAULT_MAX_DEPTH = 512;

/** Checks the options (InvalidOptionError), so an operator can refuse them before it is subscribed. */
export function checkPartialJsonOptions(options: PartialJsonOptions | undefined): { maxDepth: number } {
  return { maxDepth: positiveInt('maxDepth', options?.maxDepth, DEFAULT_MAX_DEPTH) };
}

/**
 * A parser of JSON text that arrives in pieces, showing at each step a value that is always part of the final
 * one: a string grows as a prefix of its final text (never half an escape such as `\u00e`, never half a
 * surrogate pair), a number, `true`, `false` or `null` appears only once complete (a number when a delimiter
 * follows it, or at `end()`), an object holds only the keys whose value has begun (`""` for a string that
 * started, `{}` / `[]` as soon as opened; a number still being written keeps its key out), an array only the
 * elements that have begun. Whitespace is accepted wherever JSON allows it; after the top-level value only
 * whitespace. Text that can no longer be the start of a JSON text throws a {@link JsonTextError} with its
 * position at once; text that is incomplete throws it at `end()`.
 *
 * Each character is read once: a state machine with a stack of the open containers (no re-reading, whatever
 * the chunking). Each change shown is a new object along the path from the root to the change, every other
 * branch shared with the previous value (the same object), so signals and OnPush change detection see it.
 *
 * Cost: showing a change copies the open containers (the path), which costs their size; a document whose
 * root is a large array of rows fed a few characters at a time would be quadratic if every change were
 * copied. So each write earns a copy credit (64 entries, plus 8 per character) and a change is shown only
 * when the credit covers its copies; otherwise it is deferred, and a later change shows it. The total cost is
 * linear in the text. Small documents show every change; huge ones show fewer, each still correct; `end()`
 * always returns the final value, and `value` is the value last shown.
 */
export function createPartialJsonParser(options?: PartialJsonOptions): PartialJsonParser {
  const { maxDepth } = checkPartialJsonOptions(options);
  const builder = new PartialValueBuilder();
  const scanner = new JsonScanner(builder, maxDepth);
  let failed: unknown;
  let ended = false;
  let length = 0;
  const guarded = <R>(step: () => R): R => {
    if (failed !== undefined) throw failed;
    if (ended) throw new JsonTextError('the text has ended (end() was called)', length);
    try {
      return step();
    } catch (e) {
      failed = e;
      throw e;
    }
  };
  return {
    write(chunk) {
      return guarded(() => {
        scanner.write(chunk);
        length += chunk.length;
        return builder.settle(chunk.length);
      });
    },
    get value() {
      return builder.shown;
    },
    end() {
      return guarded(() => {
        scanner.end();
        ended = true;
        return builder.finish();
      });
    },
    get copiedSlots() {
      return builder.copiedSlots;
    },
  };
}

/** Exposed for tests: the credit rates the doc comment above states. */
export const COPY_CREDIT = { perWrite: CREDIT_PER_WRITE, perCharacter: CREDIT_PER_CHARACTER } as const;
