// The incremental parser's promises, over random documents cut at random points (seeded: the same cases on every
// run): every value shown is contained in the final one, consecutive values differ, unchanged branches stay the
// same object, the last equals JSON.parse; and a text that is not JSON errors at the first character where it
// stops being the start of a JSON text.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { from } from 'rxjs';
import { JsonTextError } from '../../lib/errors';
import { createPartialJsonParser } from '../../lib/json/partial-json';
import { partialJson } from '../../operators/partialJson';
import { prng } from '../helpers/prng';
import { jsonDocument, serialise, snapshots } from './json-documents';

const RUNS = { seed: 27, numRuns: 400 };
const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Why `shown` is not part of `final` (undefined when it is). */
function notContained(shown: unknown, final: unknown, path = '$'): string | undefined {
  if (typeof shown === 'string') {
    if (typeof final !== 'string' || !final.startsWith(shown)) return `${path}: ${JSON.stringify(shown)} is not a prefix`;
    const next = final.charCodeAt(shown.length);
    if (shown.length < final.length && next >= 0xdc00 && next <= 0xdfff && /[\ud800-\udbff]$/.test(shown)) return `${path}: half a surrogate pair`;
    return undefined;
  }
  if (shown === null || typeof shown !== 'object') return Object.is(shown, final) ? undefined : `${path}: ${String(shown)} is not ${String(final)}`;
  if (Array.isArray(shown)) {
    if (!Array.isArray(final) || shown.length > final.length) return `${path}: not a prefix of the array`;
    for (let i = 0; i < shown.length - 1; i++) if (!isDeepStrictEqual(shown[i], final[i])) return `${path}[${i}]: a finished element differs`;
    return shown.length === 0 ? undefined : notContained(shown[shown.length - 1], final[shown.length - 1], `${path}[${shown.length - 1}]`);
  }
  if (!isObject(final)) return `${path}: not an object`;
  for (const k of Object.keys(shown)) {
    if (!hasOwn(final, k)) return `${path}.${k}: a key the final value does not have`;
    const why = notContained((shown as Record<string, unknown>)[k], final[k], `${path}.${k}`);
    if (why !== undefined) return why;
  }
  return undefined;
}

/** Where a branch equal in both values is not the same object. */
function copiedBranch(prev: unknown, cur: unknown, path = '$'): string | undefined {
  if (prev === null || cur === null || typeof prev !== 'object' || typeof cur !== 'object') return undefined;
  if (isDeepStrictEqual(prev, cur)) return prev === cur ? undefined : path;
  if (Array.isArray(prev) && Array.isArray(cur)) {
    for (let i = 0; i < Math.min(prev.length, cur.length); i++) {
      const at = copiedBranch(prev[i], cur[i], `${path}[${i}]`);
      if (at !== undefined) return at;
    }
  } else if (isObject(prev) && isObject(cur)) {
    for (const k of Object.keys(prev)) {
      const at = hasOwn(cur, k) ? copiedBranch(prev[k], cur[k], `${path}.${k}`) : undefined;
      if (at !== undefined) return at;
    }
  }
  return undefined;
}

function run(texts: readonly string[]): { values: unknown[]; error: unknown; completed: boolean } {
  const values: unknown[] = [];
  let error: unknown;
  let completed = false;
  from(texts).pipe(partialJson()).subscribe({ next: (v) => values.push(v), error: (e: unknown) => (error = e), complete: () => (completed = true) });
  return { values, error, completed };
}

describe('partialJson over random documents cut at random points', () => {
  test('every value is part of the final one, consecutive values differ and share unchanged branches, the last equals JSON.parse', () => {
    fc.assert(
      fc.property(jsonDocument, fc.boolean(), fc.integer(), (doc, indent, seed) => {
        const rand = prng(seed);
        const text = serialise(doc, indent, rand);
        const final: unknown = JSON.parse(text);
        const { values, error, completed } = run(snapshots(text, rand));
        expect(error).toBeUndefined();
        expect(completed).toBe(true);
        expect(values.length).toBeGreaterThan(0);
        values.forEach((v, i) => {
          const why = notContained(v, final);
          if (why !== undefined) throw new Error(`value ${i} ${JSON.stringify(v)}: ${why}`);
          if (i > 0) {
            if (isDeepStrictEqual(values[i - 1], v)) throw new Error(`values ${i - 1} and ${i} are equal`);
            const at = copiedBranch(values[i - 1], v);
            if (at !== undefined) throw new Error(`values ${i - 1} and ${i}: the unchanged branch ${at} is a new object`);
          }
        });
        expect(isDeepStrictEqual(values[values.length - 1], final)).toBe(true);
      }),
      RUNS,
    );
  });

  test('a text that is not JSON: a JsonTextError at the first character where it cannot be JSON any more', () => {
    const broken = fc.tuple(jsonDocument, fc.boolean(), fc.integer(), fc.nat(), fc.constantFrom('cut', 'insert', 'delete'), fc.constantFrom(',', ']', '}', ':', '"', 'x', '0', '-', '.', 'e', '\\', '\n', '\u0001', '{', '['));
    fc.assert(
      fc.property(broken, ([doc, indent, seed, at, how, ch]) => {
        const rand = prng(seed);
        const valid = serialise(doc, indent, rand);
        const i = at % (valid.length + 1);
        const text = how === 'cut' ? valid.slice(0, i) : how === 'insert' ? valid.slice(0, i) + ch + valid.slice(i) : valid.slice(0, i) + valid.slice(i + 1);
        let expected: unknown;
        try {
          expected = JSON.parse(text);
        } catch {
          expected = undefined;
        }
        const { values, error } = run(snapshots(text, rand));
        if (expected !== undefined) {
          expect(error).toBeUndefined();
          expect(isDeepStrictEqual(values[values.length - 1], expected)).toBe(true);
          return;
        }
        expect(error).toBeInstanceOf(JsonTextError);
        const position = (error as JsonTextError).position;
        expect(position).toBeGreaterThanOrEqual(0);
        expect(position).toBeLessThanOrEqual(text.length);
        // The text up to the position is the start of a JSON text; one more character is not (or the text ended).
        expect(() => createPartialJsonParser().write(text.slice(0, position))).not.toThrow();
        if (position < text.length) expect(() => createPartialJsonParser().write(text.slice(0, position + 1))).toThrow(JsonTextError);
        else expect(() => {
          const p = createPartialJsonParser();
          p.write(text);
          p.end();
        }).toThrow(JsonTextError);
      }),
      RUNS,
    );
  });

  test('the parser read whole agrees with JSON.parse, written in one piece or one character at a time', () => {
    fc.assert(
      fc.property(jsonDocument, fc.boolean(), fc.integer(), (doc, indent, seed) => {
        const text = serialise(doc, indent, prng(seed));
        const whole = createPartialJsonParser();
        whole.write(text);
        const bySingle = createPartialJsonParser();
        for (let i = 0; i < text.length; i++) bySingle.write(text[i]!); // code units: a raw surrogate pair is split too
        expect(isDeepStrictEqual(whole.end(), JSON.parse(text))).toBe(true);
        expect(isDeepStrictEqual(bySingle.end(), JSON.parse(text))).toBe(true);
      }),
      RUNS,
    );
  });
});
