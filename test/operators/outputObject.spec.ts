// outputObject over a structured answer cut into deltas at seeded random points (compact and indented): every
// partial value is contained in the final one, consecutive partials differ, and the last emission is the decoded
// value (equal to JSON.parse of the whole text); the same text read through the terminal event alone agrees.
import * as t from 'io-ts';
import { from, lastValueFrom, toArray } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { outputObject } from '../../operators/outputObject';
import * as ev from './events';
import { prng } from '../helpers/prng';

const Row = t.type({ name: t.string, price: t.number, tags: t.array(t.string), note: t.union([t.string, t.null]), ok: t.boolean });
const Table = t.type({ title: t.string, rows: t.array(Row) });

function table(rand: () => number): t.TypeOf<typeof Table> {
  const word = () => ['caf\u00e9', 'tea "green"', 'back\\slash', 'line\nbreak', '\u{1F600} emoji', 'tab\t', '\u0001ctl', 'plain'][Math.floor(rand() * 8)]!;
  const n = Math.floor(rand() * 5);
  return {
    title: word(),
    rows: Array.from({ length: n }, () => ({
      name: word(),
      price: [0, -1.5, 1e21, 3.25e-7, 42, -0][Math.floor(rand() * 6)]!,
      tags: Array.from({ length: Math.floor(rand() * 3) }, word),
      note: rand() < 0.5 ? null : word(),
      ok: rand() < 0.5,
    })),
  };
}

function containedIn(part: unknown, whole: unknown): boolean {
  if (typeof part === 'string') return typeof whole === 'string' && whole.startsWith(part);
  if (Array.isArray(part)) return Array.isArray(whole) && part.length <= whole.length && part.every((v, i) => containedIn(v, whole[i]));
  if (typeof part === 'object' && part !== null) {
    if (typeof whole !== 'object' || whole === null || Array.isArray(whole)) return false;
    return Object.entries(part).every(([k, v]) => k in whole && containedIn(v, (whole as Record<string, unknown>)[k]));
  }
  return Object.is(part, whole);
}

function events(text: string, rand: () => number): ResponseStreamEvent[] {
  const out: ResponseStreamEvent[] = [ev.created(), ev.itemAdded(0, ev.msg('m'))];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(rand() * 8);
    out.push(ev.textDelta('m', 0, 0, text.slice(i, i + n)));
    i += n;
  }
  out.push(ev.textDone('m', 0, 0, text), ev.completed([ev.msg('m', [ev.textPart(text)], 'completed')]));
  return out;
}

describe('outputObject over seeded random cuts', () => {
  test.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i: contained, changing, ending in the decoded value', async (seed) => {
    const rand = prng(seed);
    const value = table(rand);
    for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) {
      const final = JSON.parse(text) as unknown;
      const out = await lastValueFrom(from(events(text, rand)).pipe(outputObject(Table), toArray()));
      expect(out[out.length - 1]).toEqual(final);
      const partials = out.slice(0, -1);
      partials.forEach((p, i) => {
        expect(containedIn(p, final)).toBe(true);
        if (i > 0) expect(p).not.toEqual(partials[i - 1]);
      });
      // Only the terminal event carries the text: the same decoded value.
      const whole = await lastValueFrom(from([ev.created(), ev.completed([ev.msg('m', [ev.textPart(text)], 'completed')])]).pipe(outputObject(Table)));
      expect(whole).toEqual(final);
    }
  });
});
