// Helpers shared by the accumulating operators (not exported from the package).

export { isTerminalType } from '../../lib/events/guards.js';

/** The text of a content or summary part as the API sends it (`refusal` keeps it under its own key). */
export function partText(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return undefined;
  const p = part as { type?: unknown; text?: unknown; refusal?: unknown };
  const s = p.type === 'refusal' ? p.refusal : p.text;
  return typeof s === 'string' ? s : undefined;
}

/** An output item's field read without trusting its shape (items of unknown or partial shape pass through). */
export function field(item: unknown, key: string): unknown {
  return typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[key] : undefined;
}

export function stringField(item: unknown, key: string): string | undefined {
  const v = field(item, key);
  return typeof v === 'string' ? v : undefined;
}

/** Numeric keys of a map in ascending order (maps here hold a handful of output indexes). */
export function sortedKeys<V>(m: ReadonlyMap<number, V>): number[] {
  return [...m.keys()].sort((a, b) => a - b);
}

/**
 * An index these operators accept: a non-negative safe integer. Anything else (`"__proto__"`, `-1`, `0.5`,
 * `NaN`, absent) names no part, and the event carrying it is ignored.
 */
export function isIndex(v: unknown): v is number {
  return Number.isSafeInteger(v) && (v as number) >= 0;
}

/** An event's own fields, or `undefined` for something that is not an object. */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
}
