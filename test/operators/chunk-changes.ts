// Random changes to a Chat Completions chunk's fields, for the property tests that hold two paths of fromChatChunks
// to the same results (each test gives its own table of the values a field may take).
import fc from 'fast-check';

export type Json = Record<string, unknown>;
/** As a field's value: the field is left out. */
export const ABSENT = Symbol('absent');
export type Level = 'chunk' | 'choice' | 'delta';
export type Change = { level: Level; key: string; value: unknown };

/** One change: a field of the chunk, of its choice or of its delta, and one of the values `levels` lists for it. */
export const changeOf = (levels: Record<Level, Record<string, unknown[]>>): fc.Arbitrary<Change> =>
  fc.constantFrom(...(Object.keys(levels) as Level[])).chain((level) =>
    fc.constantFrom(...Object.keys(levels[level])).chain((key) => fc.constantFrom(...levels[level][key]!).map((value) => ({ level, key, value }))),
  );

/** The chunk `c` with `changes` made to it, its choice `c0` or the choice's delta `d`. */
export function changed(c: Json, c0: Json, d: Json, changes: readonly Change[]): Json {
  for (const { level, key, value } of changes) {
    const o = level === 'chunk' ? c : level === 'choice' ? c0 : d;
    if (value === ABSENT) delete o[key];
    else o[key] = value;
  }
  return c;
}
