// A codec's refusal as a DecodeError naming the field path (not exported from the package).
import type * as t from 'io-ts';
import { DecodeError } from '../../lib/errors.js';
import { codecPath } from '../../lib/schema/codec-path.js';

/** What was there, by kind only: the value is the model's output and may quote the user. */
function kindOf(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/**
 * The first of a codec's errors (its field path in `path`, what was expected and the kind of value found), with
 * the number of others; the values themselves are not quoted.
 */
export function codecError(errors: t.Errors, what: string): DecodeError {
  const first = errors[0];
  if (first === undefined) return new DecodeError(`${what} does not match the codec`);
  const expected = first.message ?? `expected ${first.context[first.context.length - 1]?.type.name ?? 'a valid value'}, got ${kindOf(first.value)}`;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return new DecodeError(`${what} does not match the codec: ${expected}${more}`, undefined, undefined, codecPath(first));
}
