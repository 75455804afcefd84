import fc from 'fast-check';
import * as t from 'io-ts';
import { DecodeError } from '../../lib/errors';
import { OptionalType, StructType, type Checker } from '../../lib/events/codec';
import { ChatCompletionChunk, ChatCompletionChunkChoice, ChatCompletionChunkDelta, ChatCompletionChunkToolCall, CompletionUsage } from '../../lib/events/chat';
import { chatChunkOk } from '../../lib/events/chat-fast-check';
import { describeFailure } from '../../lib/events/decode';
import { decodeChunk } from '../../lib/decode/chat-sse';

// The hand-written check of chat.completion.chunk must answer exactly what the io-ts codec answers: generated
// chunks whose fields (nested ones too) are each a valid value, a wrong-typed one or missing, with unknown keys
// added, are judged alike by both. Seeded: set FC_SEED to replay.
const SEED = process.env['FC_SEED'] !== undefined ? Number(process.env['FC_SEED']) : 20261202;
const RUNS = Number(process.env['FC_RUNS'] ?? 600);

type Json = Record<string, unknown>;
const ABSENT = Symbol('absent');

const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, '', 0, 1.5, true, [], {}, [{}], [{ type: 'text', text: 1 }], [{ type: 'text', text: 'a' }], { type: 'x' }),
);

function valueOf(codec: Checker, depth = 0): fc.Arbitrary<unknown> {
  if (codec instanceof StructType) return objectOf(codec as StructType<Record<string, t.Mixed>>, depth);
  if (codec instanceof OptionalType) return fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: valueOf(codec.inner, depth), weight: 4 });
  const tagged = codec as t.Mixed & { _tag?: string; value?: unknown; type?: t.Mixed };
  switch (tagged._tag) {
    case 'StringType': return fc.string({ maxLength: 6 });
    case 'NumberType': return fc.oneof(fc.integer(), fc.double({ noNaN: true }));
    case 'LiteralType': return fc.constant(tagged.value);
    case 'ArrayType': return depth > 5 ? fc.constant([]) : fc.array(valueOf(tagged.type as t.Mixed, depth + 1), { maxLength: 2 });
    default: {
      // nullable(…): null or the inner codec's values (the hot structs are built by hand below), else junk.
      const inner = NULLABLE_INNER.get(codec);
      return inner !== undefined ? fc.oneof(fc.constant(null), valueOf(inner, depth), { arbitrary: valueOf(inner, depth), weight: 3 }) : fc.oneof({ arbitrary: fc.constant(null), weight: 8 }, { arbitrary: fc.string({ maxLength: 4 }), weight: 4 }, { arbitrary: junk, weight: 1 });
    }
  }
}

// The nullable(struct) fields on the hot path, by the codec that wraps them (their inner struct is not reachable
// from io-ts's Type), so that the generator builds real deltas, choices, usage and tool calls.
const NULLABLE_INNER = new Map<unknown, t.Mixed>([
  [innerOf(ChatCompletionChunkChoice.props.delta), ChatCompletionChunkDelta],
  [innerOf(ChatCompletionChunk.props.usage), CompletionUsage],
  [innerOf(ChatCompletionChunkChoice.props.usage), CompletionUsage],
  [innerOf(ChatCompletionChunk.props.choices), t.array(ChatCompletionChunkChoice)],
  [innerOf(ChatCompletionChunkDelta.props.tool_calls), t.array(ChatCompletionChunkToolCall)],
]);
function innerOf(c: t.Mixed): unknown {
  return c instanceof OptionalType ? c.inner : c;
}

function objectOf(codec: StructType<Record<string, t.Mixed>>, depth: number): fc.Arbitrary<Json> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, c] of Object.entries(codec.props)) {
    fields[k] = fc.oneof({ arbitrary: valueOf(c, depth + 1), weight: 20 }, { arbitrary: junk, weight: 1 }, { arbitrary: fc.constant(ABSENT), weight: 2 });
  }
  const extra = fc.dictionary(fc.constantFrom('obfuscation', 'logprobs_extra', 'z'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
  return fc.tuple(fc.record(fields), extra).map(([r, x]) => {
    const o: Json = { ...x };
    for (const [k, v] of Object.entries(r)) if (v !== ABSENT) o[k] = v;
    return o;
  });
}

// A chunk as JSON.parse would give it (a fresh object, no `undefined` values).
const chunks = valueOf(ChatCompletionChunk).map((e) => JSON.parse(JSON.stringify(e)) as Json);

test('the fast check and the codec agree on generated chunks (valid, missing, wrong-typed and extra fields, nested)', () => {
  let accepted = 0;
  let refused = 0;
  fc.assert(
    fc.property(chunks, (e) => {
      const want = ChatCompletionChunk.is(e);
      if (want) accepted++;
      else refused++;
      return chatChunkOk(e) === want;
    }),
    { seed: SEED, numRuns: RUNS },
  );
  expect(accepted).toBeGreaterThan(RUNS / 20);
  expect(refused).toBeGreaterThan(RUNS / 10);
});

test('on a real content chunk with each field in turn (top level, choice, delta, usage) missing or of every JSON type, they agree', () => {
  const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0 } };
  const delta = { role: 'assistant', content: 'Hi', refusal: null, tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'f', arguments: '{' } }] };
  const choice = { index: 0, delta, logprobs: null, finish_reason: null, usage };
  const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', system_fingerprint: 'fp', service_tier: 'default', choices: [choice], usage, obfuscation: 'x' };
  const wrong: unknown[] = [undefined, null, 0, 0.5, '', 'x', true, [], [{}], {}, { type: 'text', text: 'a' }, [{ type: 'text', text: 'a' }]];
  const variants: unknown[] = [];
  const vary = (o: Json, rebuild: (x: Json) => unknown) => {
    for (const k of Object.keys(o)) for (const w of wrong) variants.push(rebuild({ ...o, [k]: w }));
  };
  vary(base, (x) => x);
  vary(choice, (x) => ({ ...base, choices: [x] }));
  vary(delta, (x) => ({ ...base, choices: [{ ...choice, delta: x }] }));
  vary(usage, (x) => ({ ...base, usage: x }));
  vary(delta.tool_calls[0]!, (x) => ({ ...base, choices: [{ ...choice, delta: { ...delta, tool_calls: [x] } }] }));
  expect(chatChunkOk(base)).toBe(true);
  for (const v of variants) {
    const e = JSON.parse(JSON.stringify(v)) as unknown;
    if (chatChunkOk(e) !== ChatCompletionChunk.is(e)) throw new Error(`fast check ${chatChunkOk(e)}, codec ${ChatCompletionChunk.is(e)} on ${JSON.stringify(e)}`);
  }
});

test('a chunk the check refuses fails with the codec’s error (reason and field path)', () => {
  fc.assert(
    fc.property(chunks.filter((e) => !ChatCompletionChunk.is(e)), (e) => {
      const r = ChatCompletionChunk.validate(e, [{ key: '', type: ChatCompletionChunk, actual: e }]);
      if (r._tag !== 'Left') return false;
      const { path, reason } = describeFailure(r.left);
      let thrown: unknown;
      try {
        decodeChunk(e, 'strict', 4);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(DecodeError);
      expect(thrown).toMatchObject({ reason, path, eventType: 'chat.completion.chunk' });
      return true;
    }),
    { seed: SEED, numRuns: 100 },
  );
});
