import fc from 'fast-check';
import * as t from 'io-ts';
import { DecodeError } from '../../lib/errors';
import { JsonObject, OptionalType, StructType, type Checker } from '../../lib/events/codec';
import { decodeTyped, describeFailure } from '../../lib/events/decode';
import { fastChecks } from '../../lib/events/fast-checks';
import {
  ContentPart, outputItemCodecs, ReasoningTextPart, ResponseOutputItem, ResponseOutputRefusal, ResponseOutputText,
} from '../../lib/events/items';
import { responseEventTable } from '../../lib/events/responses';

// The hand-written checks of the hot event types must accept exactly what their io-ts codec accepts: generated
// events whose fields are each a valid value, a wrong-typed one or missing, with unknown keys added, are judged
// alike by both. Seeded: set FC_SEED to replay.
const SEED = process.env['FC_SEED'] !== undefined ? Number(process.env['FC_SEED']) : 20261130;
const RUNS = Number(process.env['FC_RUNS'] ?? 400);

type Json = Record<string, unknown>;
const ABSENT = Symbol('absent');

/** Anything JSON can carry, for a field that should have been something else. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(null, '', 0, 1.5, true, [], {}, [{}], [{ type: 'output_text', text: 1 }]),
);

/** Mostly the codec's own values (with junk and missing fields mixed in), built from the codec's structure. */
function valueOf(codec: Checker, depth = 0): fc.Arbitrary<unknown> {
  if (codec instanceof StructType) return objectOf(codec as StructType<Record<string, t.Mixed>>, depth);
  if (codec instanceof OptionalType) return fc.oneof({ arbitrary: fc.constant(undefined), weight: 1 }, { arbitrary: valueOf(codec.inner, depth), weight: 3 });
  if (codec === ResponseOutputItem) {
    const items = [...outputItemCodecs.values()].map((c) => valueOf(c, depth));
    return fc.oneof(...items, objectWith({ type: fc.constantFrom('future_item', 'web_search_preview') }));
  }
  if (codec === ContentPart) {
    return fc.oneof(valueOf(ResponseOutputText, depth), valueOf(ResponseOutputRefusal, depth), valueOf(ReasoningTextPart, depth), objectWith({ type: fc.constant('future_part') }), junk);
  }
  if (codec === JsonObject) return fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
  const tagged = codec as t.Mixed & { _tag?: string; value?: unknown; type?: t.Mixed };
  switch (tagged._tag) {
    case 'StringType': return fc.string({ maxLength: 6 });
    case 'NumberType': return fc.oneof(fc.integer(), fc.double({ noNaN: true }));
    case 'BooleanType': return fc.boolean();
    case 'LiteralType': return fc.constant(tagged.value);
    case 'UnknownType': return junk;
    case 'ArrayType': return depth > 3 ? fc.constant([]) : fc.array(valueOf(tagged.type as t.Mixed, depth + 1), { maxLength: 3 });
    default:
      // nullable(…) and the like: null, a string, or junk (the codec decides which are valid).
      return fc.oneof(fc.constant(null), fc.string({ maxLength: 4 }), junk);
  }
}

/** An object of the struct's fields: each valid, wrong (junk) or missing, with unknown keys added. */
function objectOf(codec: StructType<Record<string, t.Mixed>>, depth: number): fc.Arbitrary<Json> {
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [k, c] of Object.entries(codec.props)) {
    const valid = valueOf(c, depth + 1);
    // `type` stays right most of the time: the table already dispatched on it.
    fields[k] = k === 'type'
      ? fc.oneof({ arbitrary: valid, weight: 20 }, { arbitrary: junk, weight: 1 })
      : fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: junk, weight: 1 }, { arbitrary: fc.constant(ABSENT), weight: 1 });
  }
  return objectWith(fields);
}

function objectWith(fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Json> {
  const extra = fc.dictionary(fc.constantFrom('obfuscation', 'phase', 'logprobs_extra', 'annotations_x', 'z'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
  return fc.tuple(fc.record(fields), extra).map(([r, x]) => {
    const o: Json = { ...x };
    for (const [k, v] of Object.entries(r)) if (v !== ABSENT) o[k] = v;
    return o;
  });
}

const FAST = [...responseEventTable].filter(([, codec]) => fastChecks.has(codec));

test('the hot event types have a fast check', () => {
  const types = FAST.map(([type]) => type);
  for (const type of ['response.output_text.delta', 'response.function_call_arguments.delta', 'response.reasoning_summary_text.delta', 'response.output_item.added', 'response.output_item.done', 'response.content_part.added']) {
    expect(types).toContain(type);
  }
});

describe.each(FAST)('%s', (type, codec) => {
  const fast = fastChecks.get(codec)!;
  // The event as JSON.parse would give it (a fresh object, no `undefined` values).
  const events = (valueOf(codec) as fc.Arbitrary<Json>).map((e) => JSON.parse(JSON.stringify({ ...e, type })) as Json);

  test('the fast check and the codec agree (valid, missing, wrong-typed and extra fields)', () => {
    let accepted = 0;
    let refused = 0;
    try {
      fc.assert(
        fc.property(events, (e) => {
          const want = codec.is(e);
          if (want) accepted++;
          else refused++;
          return fast(e) === want;
        }),
        { seed: SEED, numRuns: RUNS },
      );
    } catch (e) {
      throw new Error(`${type}: fast check and codec disagree with FC_SEED=${SEED}: ${(e as Error).message}`);
    }
    // Both sides of the check were exercised.
    expect(accepted).toBeGreaterThan(RUNS / 10);
    expect(refused).toBeGreaterThan(RUNS / 20);
  });

  test('on valid events with each field in turn missing, of every JSON type, or joined by an unknown key, they agree', () => {
    const valid = fc.sample(events.filter((e) => codec.is(e)), { seed: SEED, numRuns: 12 });
    expect(valid.length).toBe(12);
    const keys = Object.keys((codec as unknown as StructType<Record<string, t.Mixed>>).props).filter((k) => k !== 'type');
    const wrong: unknown[] = [null, 0, 0.5, '', 'x', true, [], [{}], {}, { type: 'output_text' }];
    for (const base of valid) {
      const variants: Json[] = [{ ...base, unknown_key: { nested: [1] } }];
      for (const k of keys) {
        const { [k]: _dropped, ...without } = base;
        variants.push(without);
        for (const w of wrong) variants.push({ ...base, [k]: w });
      }
      for (const v of variants) {
        if (fast(v) !== codec.is(v)) throw new Error(`${type}: fast check ${fast(v)}, codec ${codec.is(v)} on ${JSON.stringify(v)}`);
      }
    }
  });

  test('an event the check refuses fails with the codec’s error (reason and field path)', () => {
    fc.assert(
      fc.property(events.filter((e) => !codec.is(e)), (e) => {
        const r = codec.validate(e, [{ key: '', type: codec as unknown as t.Decoder<unknown, unknown>, actual: e }]);
        expect(r._tag).toBe('Left');
        if (r._tag !== 'Left') return;
        const { path, reason } = describeFailure(r.left);
        let thrown: unknown;
        try {
          decodeTyped(e, responseEventTable, 'strict');
        } catch (err) {
          thrown = err;
        }
        expect(thrown).toBeInstanceOf(DecodeError);
        expect(thrown).toMatchObject({ reason, path, eventType: type });
      }),
      { seed: SEED, numRuns: 50 },
    );
  });
});
