// A codec's refusal as a DecodeError naming the field path (not exported from the package).
import type * as t from 'io-ts';
import { DecodeError } from '../../lib/errors.js';

/** `items[2].price`: the keys of an io-ts context, skipping the union and intersection members' own entries. */
function pathOf(e: t.ValidationError): string {
  const keys: string[] = [];
  e.context.forEach((c, i) => {
    const parent = e.context[i - 1]?.type as { _tag?: string } | undefined;
    if (i === 0 || parent?._tag === 'UnionType' || parent?._tag === 'IntersectionType' || c.key === '') return;
    keys.push(/^\d+$/.test(c.key) ? `[${c.key}]` : keys.length ? `.${c.key}` : c.key);
  });
  return keys.join('') || '(root)';
}

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
  return new DecodeError(`${what} does not match the codec: ${expected}${more}`, undefined, undefined, pathOf(first));
}
