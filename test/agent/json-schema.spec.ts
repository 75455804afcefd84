// io-ts → JSON Schema: the derived schemas equal the expected ones, every one passes OpenAI's strict-mode rules,
// and the same codec decodes what a strict model sends (null for an absent optional property).
import * as t from 'io-ts';
import { InvalidOptionError } from '../../lib/errors';
import { argumentsFor, toJsonSchema, UnsupportedCodecError, withDescription, type JsonSchema } from '../../lib/schema/json-schema';
import { OpenAIRxError } from '../../lib/errors';
import { strictSchemaViolations } from '../../lib/schema/strict-schema';
import { defineTool } from '../../agent/index';
import { optional, struct } from '../../lib/events/codec';

const obj = (properties: Record<string, JsonSchema>, extra: Record<string, unknown> = {}): JsonSchema => ({
  type: 'object', properties, required: Object.keys(properties), additionalProperties: false, ...extra,
});

const Unit = t.keyof({ celsius: null, fahrenheit: null });
const cases: Array<[string, t.Mixed, JsonSchema]> = [
  ['string, number, Int, boolean', t.type({ s: t.string, n: t.number, i: t.Int, b: t.boolean }),
    obj({ s: { type: 'string' }, n: { type: 'number' }, i: { type: 'integer' }, b: { type: 'boolean' } })],
  ['literal and keyof (an enum)', t.type({ kind: t.literal('point'), unit: Unit, n: t.literal(3) }),
    obj({ kind: { type: 'string', enum: ['point'] }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] }, n: { type: 'integer', enum: [3] } })],
  ['a union of string literals is one enum', t.type({ mode: t.union([t.literal('a'), t.literal('b'), t.literal('c')]) }),
    obj({ mode: { type: 'string', enum: ['a', 'b', 'c'] } })],
  ['nullable: a type list, or anyOf for an object; an enum gets null too', t.type({ s: t.union([t.string, t.null]), u: t.union([Unit, t.null]), o: t.union([t.type({ x: t.number }), t.null]) }),
    obj({ s: { type: ['string', 'null'] }, u: { type: ['string', 'null'], enum: ['celsius', 'fahrenheit', null] }, o: { anyOf: [obj({ x: { type: 'number' } }), { type: 'null' }] } })],
  ['optional: t.partial, a union with undefined, and optional(): required and nullable', t.intersection([t.type({ a: t.string }), t.partial({ b: t.number }), t.type({ c: t.union([t.boolean, t.undefined]) })]),
    obj({ a: { type: 'string' }, b: { type: ['number', 'null'] }, c: { type: ['boolean', 'null'] } })],
  ["this library's struct and optional", struct({ id: t.string, limit: optional(t.Int) }, 'Query'),
    obj({ id: { type: 'string' }, limit: { type: ['integer', 'null'] } })],
  ['arrays (of objects, readonly, of unions)', t.type({ tags: t.array(t.string), points: t.readonlyArray(t.type({ x: t.number, y: t.number })), mixed: t.array(t.union([t.string, t.number])) }),
    obj({ tags: { type: 'array', items: { type: 'string' } }, points: { type: 'array', items: obj({ x: { type: 'number' }, y: { type: 'number' } }) }, mixed: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } } })],
  ['a union of objects', t.type({ shape: t.union([t.type({ kind: t.literal('circle'), r: t.number }), t.type({ kind: t.literal('square'), side: t.number })]) }),
    obj({ shape: { anyOf: [obj({ kind: { type: 'string', enum: ['circle'] }, r: { type: 'number' } }), obj({ kind: { type: 'string', enum: ['square'] }, side: { type: 'number' } })] } })],
  ['nested objects, exact and readonly wrappers, brands described by their base type', t.exact(t.type({ user: t.readonly(t.type({ name: t.string, address: t.type({ city: t.string, zip: t.union([t.string, t.undefined]) }) })), email: t.brand(t.string, (s): s is t.Branded<string, { readonly Email: unique symbol }> => s.includes('@'), 'Email') })),
    obj({ user: obj({ name: { type: 'string' }, address: obj({ city: { type: 'string' }, zip: { type: ['string', 'null'] } }) }), email: { type: 'string' } })],
  ['descriptions on properties, items, objects, and optional ones', withDescription(t.type({ city: withDescription(t.string, 'City name'), days: withDescription(t.union([t.Int, t.undefined]), 'How many days'), at: t.array(withDescription(t.string, 'ISO date')), where: t.partial({ near: withDescription(t.type({ lat: t.number }), 'A point') }) }), 'A forecast query'),
    obj({
      city: { type: 'string', description: 'City name' }, days: { type: ['integer', 'null'], description: 'How many days' },
      at: { type: 'array', items: { type: 'string', description: 'ISO date' } },
      where: obj({ near: { anyOf: [obj({ lat: { type: 'number' } }), { type: 'null' }], description: 'A point' } }),
    }, { description: 'A forecast query' })],
];

describe('toJsonSchema', () => {
  test.each(cases)('%s', (_name, codec, expected) => {
    const schema = toJsonSchema(codec);
    expect(schema).toEqual(expected);
    expect(strictSchemaViolations(schema)).toEqual([]);
  });

  test('strict: false leaves optional properties out of required instead of making them nullable', () => {
    expect(toJsonSchema(t.intersection([t.type({ a: t.string }), t.partial({ b: t.number })]), { strict: false }))
      .toEqual({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } }, required: ['a'], additionalProperties: false });
  });

  test('codecs strict mode cannot express are refused, naming where', () => {
    expect(() => toJsonSchema(t.type({ meta: t.record(t.string, t.string) }))).toThrow(UnsupportedCodecError);
    expect(() => toJsonSchema(t.type({ a: t.type({ b: t.unknown }) }))).toThrow(/at a\.b/);
    expect(() => toJsonSchema(t.type({ x: t.intersection([t.string, t.number]) as unknown as t.Mixed }))).toThrow(/only intersections of objects/);
  });
});

describe('defineTool refuses parameters the API would refuse', () => {
  test('a codec whose schema is not an object (function parameters must be one)', () => {
    for (const codec of [t.string, t.array(t.string), t.union([t.type({ a: t.string }), t.type({ b: t.number })]), t.union([t.type({ a: t.string }), t.null])] as t.Mixed[]) {
      expect(() => defineTool({ name: 'f', parameters: codec, execute: () => 'x' })).toThrow(InvalidOptionError);
      expect(() => defineTool({ name: 'f', parameters: codec, execute: () => 'x' })).toThrow(/^parameters: /);
    }
    expect(() => defineTool({ name: 'f', parameters: t.string, execute: () => 'x' })).toThrow(/parameters of a tool must be an object/);
    expect(() => defineTool({ parameters: t.intersection([t.type({ a: t.string }), t.partial({ b: t.number })]), execute: () => 'x' })).not.toThrow();
  });
  test('t.Integer is an integer too', () => {
    expect(toJsonSchema(t.type({ n: t.Integer }))).toEqual(obj({ n: { type: 'integer' } }));
  });
});

describe('argumentsFor + the codec: what a strict model sends decodes', () => {
  const codec = t.intersection([t.type({ city: t.string, note: t.union([t.string, t.null]) }), t.partial({ days: t.Int, where: t.type({ zip: t.union([t.string, t.undefined]) }) })]);
  test('null for an absent optional property is dropped; null for a nullable one is kept', () => {
    const sent = { city: 'Paris', note: null, days: null, where: { zip: null } };
    expect(argumentsFor(codec, sent)).toEqual({ city: 'Paris', note: null, where: {} });
    expect(codec.decode(argumentsFor(codec, sent))._tag).toBe('Right');
    expect(codec.decode(sent)._tag).toBe('Left'); // as sent, the codec refuses it
    expect(sent.days).toBeNull(); // the input is not changed
  });
  test('inside arrays and unions too', () => {
    const c = t.type({ items: t.array(t.union([t.type({ a: t.string, b: t.union([t.number, t.undefined]) }), t.type({ c: t.boolean })])) });
    expect(argumentsFor(c, { items: [{ a: 'x', b: null }, { c: true }] })).toEqual({ items: [{ a: 'x' }, { c: true }] });
  });
  test('defineTool checks the arguments with the same codec, and says what is wrong', () => {
    const tool = defineTool({ parameters: codec, execute: () => 'ok' });
    expect(tool.check({ city: 'Paris', note: null, days: 2.5, where: null })).toEqual({ ok: false, error: expect.stringMatching(/days: expected Int, got 2\.5/) });
    expect(tool.check({ city: 'Paris', note: 'n', days: 3, where: null })).toEqual({ ok: true, value: { city: 'Paris', note: 'n', days: 3 } });
  });
  test('a plain JSON Schema with checkArguments (type guard, Ajv-style with errors, safeParse-style)', () => {
    const parameters = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'], additionalProperties: false };
    const guard = defineTool({ parameters, checkArguments: (u): u is { n: number } => typeof (u as { n?: unknown }).n === 'number', execute: ({ n }) => n });
    expect(guard.check({ n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    expect(guard.check({ n: 'x' })).toEqual({ ok: false, error: 'the arguments do not match the schema' });
    const ajv = Object.assign((u: unknown) => typeof (u as { n?: unknown }).n === 'number', { errors: [{ instancePath: '/n', message: 'must be number' }] });
    expect(defineTool({ parameters, checkArguments: ajv, execute: () => 1 }).check({ n: 'x' })).toEqual({ ok: false, error: '/n must be number' });
    const safeParse = (u: unknown) => (typeof (u as { n?: unknown }).n === 'number' ? { success: true, data: { n: 2 } } : { success: false, error: new Error('n: Expected number') });
    expect(defineTool({ parameters, checkArguments: safeParse, execute: () => 1 }).check({ n: 1 })).toEqual({ ok: true, value: { n: 2 } });
    expect(defineTool({ parameters, checkArguments: safeParse, execute: () => 1 }).check({})).toEqual({ ok: false, error: 'n: Expected number' });
    expect(guard.definition('count')).toEqual({ type: 'function', name: 'count', parameters, strict: true });
  });
});

describe('strictSchemaViolations: each rule fails where it should', () => {
  const ok = obj({ a: { type: 'string' } });
  test.each<[string, JsonSchema, RegExp]>([
    ['a root that is not an object', { anyOf: [ok, { type: 'null' }] }, /root must be an object/],
    ['additionalProperties not false', { ...ok, additionalProperties: true }, /additionalProperties must be false/],
    ['a property not required', { ...ok, required: [] }, /missing: a/],
    ['required naming no property', { ...ok, required: ['a', 'b'] }, /not a property \(b\)/],
    ['an unsupported keyword', obj({ a: { allOf: [{ type: 'string' }] } }), /keyword allOf/],
    ['a keyword of another type', obj({ a: { type: 'string', minItems: 1 } }), /keyword minItems is not supported for type string/],
    ['an array without items', obj({ a: { type: 'array' } }), /array needs items/],
    ['an enum value of another type', obj({ a: { type: 'string', enum: ['x', 1] } }), /enum value 1/],
    ['an unknown type', obj({ a: { type: 'date' } }), /unsupported type "date"/],
    ['a dangling $ref', obj({ a: { $ref: '#/$defs/Missing' } }), /does not point into the schema/],
    ['too deep', Array.from({ length: 11 }).reduce<JsonSchema>((inner) => obj({ a: inner }), { type: 'string' }), /nested deeper than 10/],
    ['too many enum values', obj({ a: { type: 'integer', enum: Array.from({ length: 1001 }, (_, i) => i) } }), /1001 enum values/],
  ])('%s', (_name, schema, message) => {
    expect(strictSchemaViolations(schema)).toContainEqual(expect.stringMatching(message));
  });
  test('$defs and $ref into them are fine', () => {
    expect(strictSchemaViolations({ ...obj({ p: { $ref: '#/$defs/P' } }), $defs: { P: obj({ x: { type: 'number' } }) } })).toEqual([]);
  });
});

test('UnsupportedCodecError is one of the package errors (OpenAIRxError, with code and toJSON)', () => {
  const e = (() => {
    try {
      toJsonSchema(t.type({ meta: t.record(t.string, t.string) }));
    } catch (err) {
      return err;
    }
  })();
  expect(e).toBeInstanceOf(OpenAIRxError);
  expect((e as OpenAIRxError).code).toBe('unsupported_codec');
  expect((e as OpenAIRxError).toJSON()).toMatchObject({ name: 'UnsupportedCodecError', code: 'unsupported_codec' });
});
