// The incremental parser's cost is linear in the text, counted rather than timed (no test may depend on speed):
// showing a change copies the open containers, so a root array of rows fed a few characters at a time would copy
// O(rows) entries per change, O(n²) in all, if every change were shown. The copies are paid from a credit earned
// per write and per character, so the entries copied per character are bounded by the same constant at 2,000 rows
// and at 20,000.
import { isDeepStrictEqual } from 'node:util';
import { COPY_CREDIT, createPartialJsonParser } from '../../lib/json/partial-json';
import { prng } from '../helpers/prng';

function rows(n: number): string {
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) out.push({ id: i, name: `row ${i}`, score: i / 8, tags: ['a', `t${i % 7}`], nested: { x: [i, i + 1], ok: i % 2 === 0 } });
  return JSON.stringify(out);
}

function feed(text: string): { copiesPerCharacter: number; shown: number; final: unknown } {
  const rand = prng(27);
  const parser = createPartialJsonParser();
  let shown = 0;
  for (let at = 0; at < text.length; ) {
    const next = Math.min(text.length, at + 1 + Math.floor(rand() * 8));
    if (parser.write(text.slice(at, next))) shown++;
    at = next;
  }
  const final = parser.end();
  return { copiesPerCharacter: parser.copiedSlots / text.length, shown, final };
}

test('entries copied per character: bounded by the credit, the same at 2,000 and 20,000 rows; every document still shows its progress', () => {
  const bound = COPY_CREDIT.perWrite + COPY_CREDIT.perCharacter; // a write has at least one character
  const small = rows(2_000);
  const large = rows(20_000);
  const a = feed(small);
  const b = feed(large);
  expect(a.copiesPerCharacter).toBeLessThanOrEqual(bound);
  expect(b.copiesPerCharacter).toBeLessThanOrEqual(bound);
  expect(b.copiesPerCharacter).toBeLessThanOrEqual(a.copiesPerCharacter * 1.5);
  expect(isDeepStrictEqual(a.final, JSON.parse(small))).toBe(true);
  expect(isDeepStrictEqual(b.final, JSON.parse(large))).toBe(true);
  // Fewer changes shown in the large one, but still many (one per ~2,000 characters at least).
  expect(b.shown).toBeGreaterThan(large.length / 2_000);
});

test('a small document shows every change: each write that changes the value is shown', () => {
  const text = JSON.stringify({ title: 'Paris', days: [{ t: 21, sky: 'clear' }, { t: 19.5, sky: 'rain' }], ok: true });
  const parser = createPartialJsonParser();
  const shown: string[] = [];
  for (let i = 0; i < text.length; i++) if (parser.write(text[i]!)) shown.push(JSON.stringify(parser.value));
  // One value per change: the 3 objects and the array opened, the 3 strings begun and their 14 characters, 2
  // numbers and a literal completed (the keys show with their values).
  expect(shown).toContain('{"title":"P"}');
  expect(shown).toContain('{"title":"Paris","days":[{"t":21}]}');
  expect(shown).toContain('{"title":"Paris","days":[{"t":21,"sky":"clear"},{"t":19.5,"sky":""}]}');
  expect(shown.length).toBe(new Set(shown).size);
  expect(shown.length).toBe(4 + 3 + 14 + 3);
});
