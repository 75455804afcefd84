// Every function call's arguments in the recorded transcripts (test/fixtures and, bridged from Chat
// Completions, the provider dialects) through partialToolCalls: every emission is contained in the final
// arguments, consecutive emissions differ, and the last is done and equals JSON.parse of the call's final
// arguments. Each transcript also runs with its argument deltas cut again at seeded random points.
import { from, lastValueFrom, toArray } from 'rxjs';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { partialToolCalls, type PartialToolCall } from '../../operators/partialToolCalls';
import { fixture, payloads, responsesFixtures } from '../helpers/fixtures';
import { prng } from '../helpers/prng';
import { bridged, dialect, dialectFiles } from '../chat/dialects';

/** `part` shows nothing `whole` does not: a string its prefix, objects and arrays only what has begun. */
function containedIn(part: unknown, whole: unknown): boolean {
  if (typeof part === 'string') return typeof whole === 'string' && whole.startsWith(part);
  if (Array.isArray(part)) return Array.isArray(whole) && part.length <= whole.length && part.every((v, i) => containedIn(v, whole[i]));
  if (typeof part === 'object' && part !== null) {
    if (typeof whole !== 'object' || whole === null || Array.isArray(whole)) return false;
    return Object.entries(part).every(([k, v]) => Object.prototype.hasOwnProperty.call(whole, k) && containedIn(v, (whole as Record<string, unknown>)[k]));
  }
  return Object.is(part, whole);
}

/** The final arguments of each function call, by call_id, as the events say them (`.done`, else the closed item). */
function finalArguments(events: ResponseStreamEvent[]): Map<string, string> {
  const callOf = new Map<string, string>();
  const out = new Map<string, string>();
  for (const e of events as unknown as Array<Record<string, unknown>>) {
    const item = e['item'] as Record<string, unknown> | undefined;
    if (item?.['type'] === 'function_call' && typeof item['id'] === 'string') callOf.set(item['id'], item['call_id'] as string);
    if (e['type'] === 'response.output_item.done' && item?.['type'] === 'function_call' && !out.has(item['call_id'] as string)) out.set(item['call_id'] as string, item['arguments'] as string);
    if (e['type'] === 'response.function_call_arguments.done') {
      const callId = callOf.get(e['item_id'] as string);
      if (callId !== undefined) out.set(callId, e['arguments'] as string);
    }
  }
  return out;
}

/** The argument deltas cut again at random points (the same text, in more pieces). */
function recut(events: ResponseStreamEvent[], seed: number): ResponseStreamEvent[] {
  const rand = prng(seed);
  return events.flatMap((ev) => {
    const e = ev as unknown as Record<string, unknown>;
    if (e['type'] !== 'response.function_call_arguments.delta' || typeof e['delta'] !== 'string') return [ev];
    const d = e['delta'];
    const pieces: ResponseStreamEvent[] = [];
    for (let i = 0; i < d.length; ) {
      const n = 1 + Math.floor(rand() * 4);
      pieces.push({ ...e, delta: d.slice(i, i + n) } as unknown as ResponseStreamEvent);
      i += n;
    }
    return pieces;
  });
}

async function check(events: ResponseStreamEvent[]): Promise<number> {
  const finals = finalArguments(events);
  const out: PartialToolCall[] = await lastValueFrom(from(events).pipe(partialToolCalls(), toArray()));
  const byCall = new Map<string, PartialToolCall[]>();
  for (const c of out) byCall.set(c.call_id, [...(byCall.get(c.call_id) ?? []), c]);
  expect([...byCall.keys()].sort()).toEqual([...finals.keys()].sort());
  for (const [callId, emissions] of byCall) {
    const final = JSON.parse(finals.get(callId)!) as unknown;
    const last = emissions[emissions.length - 1]!;
    expect(last.done).toBe(true);
    expect(last.arguments).toEqual(final);
    expect(emissions.filter((c) => c.done)).toHaveLength(1);
    emissions.forEach((c, i) => {
      expect(containedIn(c.arguments, final)).toBe(true);
      if (i > 0) expect(c).not.toEqual(emissions[i - 1]);
    });
  }
  return finals.size;
}

describe('partialToolCalls over the recorded transcripts', () => {
  const responses = responsesFixtures().map((name) => [name, () => payloads(fixture(name)) as unknown as ResponseStreamEvent[]] as const);
  const dialects = dialectFiles().map((name) => [`dialects/${name}`, () => bridged(dialect(name))] as const);
  const all = [...responses, ...dialects];

  test.each(all)('%s: contained, changing, ending in JSON.parse of the final arguments', async (_name, load) => {
    const events = await load();
    await check(events);
    for (const seed of [1, 2, 3]) await check(recut(events, seed));
  });

  test('the transcripts hold function calls to check', async () => {
    let calls = 0;
    for (const [, load] of all) calls += finalArguments(await load()).size;
    expect(calls).toBeGreaterThanOrEqual(8);
  });
});
