import { DecodeError } from '../../lib/errors.js';

// Defensive field readers for the chat operators: their input may come from `validate: 'off'`, a
// lenient decoder or a hand-built source, so no field is trusted to have the type its codec says.

export type Rec = Readonly<Record<string, unknown>>;

export function isRecord(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `o[key]` when it is `o`'s own property, else `undefined`: nothing inherited through a prototype is read (an
 * object made with a `__proto__` key by `Object.assign` or a merge, an object created over another, a polluted
 * `Object.prototype`), so no text or tool call can come from anywhere but the value itself.
 */
export function own(o: Rec, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

/** Element `i` of a list, `undefined` for a hole (which would read `Array.prototype`). */
export function elementOf(list: readonly unknown[], i: number): unknown {
  return Object.hasOwn(list, i) ? list[i] : undefined;
}

/** A DecodeError about a field of a Responses event, naming its type and sequence number. */
export function eventError(e: unknown, path: string, reason: string): DecodeError {
  const r = isRecord(e) ? e : {};
  const t = own(r, 'type');
  const n = own(r, 'sequence_number');
  return new DecodeError(reason, typeof t === 'string' ? t : undefined, typeof n === 'number' ? n : undefined, path);
}

/** A required string field of event `e` (read from `o`, `e` itself or a nested object). */
export function str(e: Rec, o: Rec, key: string, path: string = key): string {
  const v = own(o, key);
  if (typeof v !== 'string') throw eventError(e, path, 'not a string');
  return v;
}

/** An optional string field: absent or `null` gives `undefined`, another type is a DecodeError. */
export function optStr(e: Rec, o: Rec, key: string, path: string = key): string | undefined {
  const v = own(o, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw eventError(e, path, 'not a string');
  return v;
}

/**
 * A required index of event `e`. Any number is accepted (strict codecs accept -1 or 1.5 too): callers
 * use it only as a Map key or to compare, never to index an array, so it can neither pollute a
 * prototype nor cost more when it is huge.
 */
export function num(e: Rec, o: Rec, key: string, path: string = key): number {
  const v = own(o, key);
  if (typeof v !== 'number') throw eventError(e, path, 'not a number');
  return v;
}

/** A DecodeError about chunk number `n` of a chat stream. */
export function chunkError(n: number, path: string, reason: string): DecodeError {
  return new DecodeError(reason, 'chat.completion.chunk', n, path);
}
