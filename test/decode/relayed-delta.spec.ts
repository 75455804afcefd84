// The relay's fast path (lib/decode/relayed-delta.ts): a flat delta is checked, not parsed. Whatever it accepts
// JSON.parse accepts too and reads the same way (type, sequence number, every field); whatever it refuses is
// parsed as before; and a decoding with it gives every recording's events as a decoding without it does.
import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { fromResponsesSSE, rawDataOf } from '../../index';
import { relayedDelta } from '../../lib/decode/relayed-delta';
import { fixture, FIXTURES_DIR } from '../helpers/fixtures';
import { run } from './sources';

const SEED = process.env['FC_SEED'] !== undefined ? Number(process.env['FC_SEED']) : 20261206;
const params = { seed: SEED, numRuns: 300 };

const DELTA_TYPES = ['response.output_text.delta', 'response.audio.transcript.delta', 'response.function_call_arguments.delta', 'response.reasoning_summary_text.delta'];
const key = fc.constantFrom('item_id', 'output_index', 'content_index', 'summary_index', 'delta', 'logprobs', 'obfuscation', 'x_vendor', '__proto__');
const value = fc.oneof(
  fc.string({ unit: 'binary' }), // any UTF-16 code unit: quotes, backslashes, control characters, lone surrogates
  fc.string({ unit: fc.constantFrom('"', '\\', '/', '\n', '\u0000', '\u2028', 'é', 'a') }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(true, false, null, [] as unknown[]),
);
const flatDelta = fc.record({
  type: fc.constantFrom(...DELTA_TYPES),
  sequence_number: fc.oneof(fc.nat(100_000), fc.nat({ max: Number.MAX_SAFE_INTEGER })),
  rest: fc.array(fc.tuple(key, value), { maxLength: 7 }),
  at: fc.nat(7), // where sequence_number comes among the fields (OpenAI sends it last)
});
const textOf = (d: { type: string; sequence_number: number; rest: Array<[string, unknown]>; at: number }): string => {
  const fields = d.rest.map(([k, v]) => `,"${k}":${JSON.stringify(v)}`);
  fields.splice(Math.min(d.at, fields.length), 0, `,"sequence_number":${d.sequence_number}`);
  return `{"type":${JSON.stringify(d.type)}${fields.join('')}}`;
};

test('a flat delta in any content: what JSON.parse reads, field by field and as JSON', () => {
  fc.assert(
    fc.property(flatDelta, (d) => {
      const text = textOf(d);
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const e = relayedDelta(text, d.type);
      // 16 digits or more may not be exact as a double: left to JSON.parse.
      if (String(d.sequence_number).length > 15) return expect(e).toBeUndefined();
      expect(e).toBeDefined();
      expect(e!.type).toBe(parsed['type']);
      expect(e!.sequence_number).toBe(parsed['sequence_number']);
      expect((e as unknown as Record<string, unknown>)['delta']).toEqual(parsed['delta']);
      expect((e as unknown as Record<string, unknown>)['item_id']).toEqual(parsed['item_id']);
      expect((e as unknown as Record<string, unknown>)['logprobs']).toEqual(parsed['logprobs']);
    }),
    params,
  );
});

test('any edit of a flat delta: accepted only where JSON.parse reads the same type and sequence number', () => {
  // Mostly characters that may keep it JSON (inside a string or a number), the rest its syntax and its keys.
  const insert = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('0', '9', '-', '.', 'e', 'E', '+', 'u', 'x', 'a', '/', '\\"', '\\u0041', 'é') },
    { weight: 2, arbitrary: fc.constantFrom('"', '\\', ',', ':', '{', '}', '[', ']', ' ', '\u0001', 'type', 'sequence_number', '"type":"error"', ',"sequence_number":1', ',"response_id":"r"', ',"a":[]') },
  );
  const edit = fc.tuple(fc.nat(), fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat(3) }), insert);
  let accepted = 0;
  fc.assert(
    fc.property(flatDelta, fc.array(edit, { minLength: 1, maxLength: 2 }), (d, edits) => {
      let text = textOf(d);
      for (const [at, drop, insert] of edits) {
        const i = at % (text.length + 1);
        text = text.slice(0, i) + insert + text.slice(i + drop);
      }
      const e = relayedDelta(text, undefined);
      if (e === undefined) return;
      accepted++;
      const parsed = JSON.parse(text) as Record<string, unknown>; // throws (fails the test) on a text JSON refuses
      expect(e.type).toBe(parsed['type']);
      expect(e.sequence_number).toBe(parsed['sequence_number']);
      expect(e.toJSON()).toEqual(parsed);
    }),
    { ...params, numRuns: 4000 },
  );
  // Edits inside string values and numbers keep a text flat JSON: the property saw many accepted ones.
  expect(accepted).toBeGreaterThan(150);
});

test('left to JSON.parse: not a delta, not flat, not in order, a key again, another event name, a number not exact', () => {
  const flat = '"item_id":"m","output_index":0,"delta":"hi"';
  const refused = [
    '{"type":"response.completed","sequence_number":3}',
    '{"type":"error","sequence_number":3,"message":"x"}',
    `{"sequence_number":1,"type":"response.output_text.delta",${flat}}`,
    `{ "type":"response.output_text.delta","sequence_number":1,${flat}}`,
    `{"type":"response.output_text.delta","sequence_number":1,${flat},"logprobs":[{"token":"hi"}]}`,
    `{"type":"response.output_text.delta","sequence_number":1,${flat},"type":"response.completed"}`,
    `{"type":"response.output_text.delta","sequence_number":1,${flat},"sequence_number":0}`,
    `{"type":"response.output_text.delta","sequence_number":1,"response_id":"resp_9",${flat}}`,
    `{"type":"response.output_text.delta","sequence_number":01,${flat}}`,
    `{"type":"response.output_text.delta","sequence_number":1.5,${flat}}`,
    `{"type":"response.output_text.delta","sequence_number":1234567890123456,${flat}}`,
    `{"type":"response.output_text.delta","sequence_number":1,"delta":"a\\qb"}`,
    `{"type":"response.output_text.delta","sequence_number":1,"delta":"a\tb"}`,
    `{"type":"response.output_text.delta","sequence_number":1,${flat}} `,
  ];
  for (const text of refused) expect([text, relayedDelta(text, undefined)]).toEqual([text, undefined]);
  expect(relayedDelta(`{"type":"response.output_text.delta","sequence_number":1,${flat}}`, 'response.refusal.delta')).toBeUndefined();
  const kept = relayedDelta(`{"type":"response.output_text.delta","sequence_number":123456789012345,${flat}}`, 'response.output_text.delta');
  expect([kept?.type, kept?.sequence_number]).toEqual(['response.output_text.delta', 123456789012345]);
});

test('every recording decodes alike with and without it: the same events, the same texts, the same end', async () => {
  const files = readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.sse') && !f.startsWith('chat-'));
  expect(files.length).toBeGreaterThan(5);
  let relayed = 0;
  for (const f of files) {
    const text = fixture(f.replace(/\.sse$/, ''));
    const plain = await run(fromResponsesSSE(text, { keepRawData: true, errorEvents: 'value' }));
    const fast = await run(fromResponsesSSE(text, { keepRawData: true, errorEvents: 'value', relayDeltas: true }));
    expect([f, JSON.stringify(fast.values)]).toEqual([f, JSON.stringify(plain.values)]);
    expect(fast.values.map((e) => rawDataOf(e))).toEqual(plain.values.map((e) => rawDataOf(e)));
    expect([fast.completed, String(fast.error)]).toEqual([plain.completed, String(plain.error)]);
    relayed += fast.values.filter((e) => Object.keys(e).length === 2).length;
  }
  // The fast path was taken (a relayed delta's own keys are its type and sequence number).
  expect(relayed).toBeGreaterThan(20);
});

test('duplicates are dropped and gaps seen as with JSON.parse; without keepRawData nothing is relayed', async () => {
  const d = (n: number): string => `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":${n},"item_id":"m","output_index":0,"content_index":0,"delta":"${n}"}\n\n`;
  const body = `${d(1)}${d(2)}${d(2)}${d(1)}${d(4)}`;
  const fast = await run(fromResponsesSSE(body, { keepRawData: true, relayDeltas: true, sequence: 'strict', startingAfter: 0 }));
  const plain = await run(fromResponsesSSE(body, { keepRawData: true, sequence: 'strict', startingAfter: 0 }));
  expect(fast.values.map((e) => e.sequence_number)).toEqual([1, 2]);
  expect(plain.values.map((e) => e.sequence_number)).toEqual([1, 2]);
  expect(String(fast.error)).toBe(String(plain.error));
  const off = await run(fromResponsesSSE(body, { relayDeltas: true }));
  expect(off.values.every((e) => Object.keys(e).length > 2)).toBe(true);
});
