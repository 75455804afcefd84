// jsonSchemaFormat: a structured output's text.format from an io-ts codec, its schema the one defineTool derives
// for a tool's parameters, strict-mode valid; refused names and codecs are InvalidOptionErrors; the format reaches
// the provider as it was built.
import * as t from 'io-ts';
import { lastValueFrom, toArray } from 'rxjs';
import { InvalidOptionError } from '../../lib/errors';
import { jsonSchemaFormat } from '../../lib/schema/json-schema-format';
import { toJsonSchema, UnsupportedCodecError, withDescription, type JsonSchema } from '../../lib/schema/json-schema';
import { strictSchemaViolations } from '../../lib/schema/strict-schema';
import { streamResponse } from '../../lib/http/transports';
import { optional, struct } from '../../lib/events/codec';
import { defineTool } from '../../agent/define-tool';
import { startFakeProvider, type FakeProvider } from '../../testing/index';

const Unit = t.keyof({ celsius: null, fahrenheit: null });
const codecs: Array<[string, t.Mixed]> = [
  ['scalars', t.type({ s: t.string, n: t.number, i: t.Int, b: t.boolean })],
  ['optional properties (partial, | undefined, optional())', t.intersection([t.type({ a: t.string }), t.partial({ b: t.number }), struct({ c: optional(t.boolean) }, 'C')])],
  ['nested objects and arrays', t.type({ user: t.type({ name: t.string, tags: t.array(t.string), address: t.partial({ city: t.string }) }), points: t.readonlyArray(t.type({ x: t.number })) })],
  ['unions, literals and enums', t.type({ kind: t.literal('card'), unit: Unit, mode: t.union([t.literal('a'), t.literal('b')]), shape: t.union([t.type({ r: t.number }), t.type({ side: t.number })]), note: t.union([t.string, t.null]) })],
  ['descriptions', withDescription(t.type({ city: withDescription(t.string, 'City name') }), 'A query')],
];

const tool = (parameters: t.Mixed, strict?: boolean) => defineTool({ parameters, ...(strict === undefined ? {} : { strict }), execute: () => 'ok' });

describe('jsonSchemaFormat', () => {
  test.each(codecs)('%s: the same schema as defineTool derives for parameters, strict-mode valid', (_, codec) => {
    const format = jsonSchemaFormat(codec, { name: 'answer' });
    expect(format.schema).toEqual(tool(codec).parameters);
    expect(format.schema).toEqual(toJsonSchema(codec));
    expect(format.strict).toBe(true);
    expect(strictSchemaViolations(format.schema)).toEqual([]);
  });

  test.each(codecs)('%s, strict: false: the same as a non-strict tool', (_, codec) => {
    const format = jsonSchemaFormat(codec, { name: 'answer', strict: false });
    expect(format.strict).toBe(false);
    expect(format.schema).toEqual(tool(codec, false).parameters);
  });

  test('the whole format: type, name, strict and the schema, nothing else', () => {
    const format = jsonSchemaFormat(t.type({ city: t.string }), { name: 'weather_v2-a' });
    expect(format).toEqual({
      type: 'json_schema', name: 'weather_v2-a', strict: true,
      schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
    });
    expect(Object.keys(format)).toEqual(['type', 'name', 'strict', 'schema']);
  });

  test('a description is sent only when given', () => {
    expect('description' in jsonSchemaFormat(t.type({ a: t.string }), { name: 'x' })).toBe(false);
    expect(jsonSchemaFormat(t.type({ a: t.string }), { name: 'x', description: 'What it is for' }).description).toBe('What it is for');
  });

  test('optional properties are required and nullable in strict mode, left out of required otherwise', () => {
    const codec = t.intersection([t.type({ a: t.string }), t.partial({ b: t.number, o: t.type({ x: t.string }) })]);
    const strict = jsonSchemaFormat(codec, { name: 'x' }).schema as { properties: Record<string, JsonSchema>; required: string[] };
    expect(strict.required).toEqual(['a', 'b', 'o']);
    expect(strict.properties['b']).toEqual({ type: ['number', 'null'] });
    expect(strict.properties['o']).toEqual({ anyOf: [{ type: 'object', properties: { x: { type: 'string' } }, required: ['x'], additionalProperties: false }, { type: 'null' }] });
    const loose = jsonSchemaFormat(codec, { name: 'x', strict: false }).schema as { properties: Record<string, JsonSchema>; required: string[] };
    expect(loose.required).toEqual(['a']);
    expect(loose.properties['b']).toEqual({ type: 'number' });
  });

  test.each([
    ['empty', ''],
    ['a space', 'my format'],
    ['a dot', 'a.b'],
    ['not ASCII', 'météo'],
    ['65 characters', 'a'.repeat(65)],
    ['not a string', 42],
    ['missing', undefined],
  ])('a name the API refuses (%s) is an InvalidOptionError on name', (_, name) => {
    const e = catching(() => jsonSchemaFormat(t.type({ a: t.string }), { name } as { name: string }));
    expect(e).toBeInstanceOf(InvalidOptionError);
    expect((e as InvalidOptionError).option).toBe('name');
  });

  test('a name of 64 characters from every allowed class is taken', () => {
    const name = `aZ09_-${'x'.repeat(58)}`;
    expect(jsonSchemaFormat(t.type({ a: t.string }), { name }).name).toBe(name);
  });

  test('a codec the schema cannot express is an InvalidOptionError on codec, the UnsupportedCodecError its cause', () => {
    const e = catching(() => jsonSchemaFormat(t.type({ tags: t.record(t.string, t.string) }), { name: 'x' }));
    expect(e).toBeInstanceOf(InvalidOptionError);
    expect((e as InvalidOptionError).option).toBe('codec');
    expect((e as Error).cause).toBeInstanceOf(UnsupportedCodecError);
    expect((e as Error).message).toContain('tags');
  });

  test('a strict schema the API would refuse (a root that is not an object) is an InvalidOptionError on codec', () => {
    for (const codec of [t.string, t.union([t.type({ a: t.string }), t.null]), t.array(t.string)]) {
      const e = catching(() => jsonSchemaFormat(codec, { name: 'x' }));
      expect(e).toBeInstanceOf(InvalidOptionError);
      expect((e as InvalidOptionError).option).toBe('codec');
    }
    // Not strict: the API takes any schema, so it is sent as derived.
    expect(jsonSchemaFormat(t.array(t.string), { name: 'x', strict: false }).schema).toEqual({ type: 'array', items: { type: 'string' } });
  });

  test('options the API cannot take: description not a string, strict not a boolean, codec not a codec', () => {
    const option = (f: () => unknown) => (catching(f) as InvalidOptionError).option;
    expect(option(() => jsonSchemaFormat(t.type({ a: t.string }), { name: 'x', description: 3 as unknown as string }))).toBe('description');
    expect(option(() => jsonSchemaFormat(t.type({ a: t.string }), { name: 'x', strict: 'yes' as unknown as boolean }))).toBe('strict');
    expect(option(() => jsonSchemaFormat({ type: 'object' } as unknown as t.Mixed, { name: 'x' }))).toBe('codec');
  });
});

describe('jsonSchemaFormat in a request', () => {
  let provider: FakeProvider | undefined;
  afterEach(() => provider?.close());

  test('streamResponse sends the format in text.format unchanged', async () => {
    const bodies: Array<Readonly<Record<string, unknown>>> = [];
    provider = await startFakeProvider({ answer: (body) => (bodies.push(body), '{"city":"Paris"}') });
    const format = jsonSchemaFormat(t.type({ city: withDescription(t.string, 'City name'), days: optional(t.Int) }), { name: 'forecast', description: 'A forecast query' });
    const events = await lastValueFrom(streamResponse({ model: 'gpt-5.4-mini', input: 'Paris', text: { format } }, { baseURL: provider.baseURL, apiKey: 'sk-test' }).pipe(toArray()));
    expect(events[events.length - 1]?.type).toBe('response.completed');
    expect(bodies).toHaveLength(1);
    expect(bodies[0]?.['text']).toEqual({ format: JSON.parse(JSON.stringify(format)) });
    expect((bodies[0]?.['text'] as { format: unknown }).format).toEqual(format);
  });
});

function catching(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}
