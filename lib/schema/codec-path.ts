// Where in a value an io-ts codec refused it, as a user would write the path: `items[2].price`.
import type * as t from 'io-ts';

/** The keys of an io-ts error's context, skipping the union and intersection members' own entries; `(root)` for the value itself. */
export function codecPath(e: t.ValidationError): string {
  const keys: string[] = [];
  e.context.forEach((c, i) => {
    const parent = e.context[i - 1]?.type as { _tag?: string } | undefined;
    if (i === 0 || parent?._tag === 'UnionType' || parent?._tag === 'IntersectionType' || c.key === '') return;
    keys.push(/^\d+$/.test(c.key) ? `[${c.key}]` : keys.length ? `.${c.key}` : c.key);
  });
  return keys.join('') || '(root)';
}
