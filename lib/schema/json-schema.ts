import * as t from 'io-ts';
import { OptionalType, StructType } from '../events/codec.js';
import { InvalidOptionError, OpenAIRxError } from '../errors.js';

// io-ts codec → the JSON Schema of a function tool's `parameters`, valid for `strict: true` function calling:
// every object lists all its properties in `required` and has `additionalProperties: false`; a property that
// may be absent becomes "that or null". `argumentsFor` undoes that null before the same codec decodes.

/** A JSON Schema (the subset this module writes). */
export type JsonSchema = { readonly [key: string]: unknown };

/** A codec that carries a description for the schema; decodes exactly as the codec it wraps. */
export class DescribedType<C extends t.Mixed> extends t.Type<t.TypeOf<C>, t.OutputOf<C>, unknown> {
  readonly _tag = 'DescribedType' as const;
  constructor(readonly type: C, readonly description: string) {
    super(type.name, type.is, type.validate, type.encode);
  }
}

/**
 * Attaches a description to a codec: it becomes the `description` of that schema (a property's, an array
 * item's, or the root object's). It returns a new codec that decodes as the given one, so `t.string` itself
 * is never marked for every other use.
 *
 * ```ts
 * const Weather = t.type({ city: withDescription(t.string, 'City name, e.g. Paris'), unit: t.keyof({ celsius: null, fahrenheit: null }) });
 * ```
 */
export function withDescription<C extends t.Mixed>(codec: C, description: string): DescribedType<C> {
  return new DescribedType(codec, description);
}

/** A codec the schema cannot express (a record, `unknown`, a function…), named with its place. */
export class UnsupportedCodecError extends OpenAIRxError {
  override readonly name = 'UnsupportedCodecError';
  readonly code = 'unsupported_codec';
  constructor(readonly codecName: string, readonly path: string, reason: string) {
    super(`cannot derive a JSON Schema for ${codecName} at ${path || '(root)'}: ${reason}`);
  }
}

export interface JsonSchemaOptions {
  /**
   * `true` (default): strict-mode shape, every property required and the optional ones nullable.
   * `false`: optional properties are simply left out of `required`.
   */
  readonly strict?: boolean;
}

type Any = t.Mixed & { readonly _tag?: string };
interface Prop {
  readonly codec: Any;
  /** May be absent (`t.partial`, `optional(…)`, a union with `undefined`). */
  readonly optional: boolean;
}

/** io-ts's integer refinements: `t.Int`, and the deprecated `t.Integer`. */
const INTEGER = new Set(['Int', 'Integer']);

/** The codec under wrappers that change nothing in the schema (exact, readonly, refinements other than Int). */
function unwrap(c: Any): { codec: Any; description?: string } {
  let description: string | undefined;
  for (;;) {
    if (c instanceof DescribedType) {
      description ??= c.description;
      c = c.type as Any;
    } else if (c._tag === 'ExactType' || c._tag === 'ReadonlyType' || (c._tag === 'RefinementType' && !INTEGER.has(c.name))) {
      c = (c as unknown as { type: Any }).type;
    } else return { codec: c, description };
  }
}

/** `undefined` / `void` members of a union make a property optional; the rest is its type. */
function splitUndefined(c: Any): { codec: Any; optional: boolean } {
  if (c instanceof OptionalType) return { codec: c.inner as Any, optional: true };
  const { codec, description } = unwrap(c);
  if (codec._tag !== 'UnionType') return { codec: c, optional: false };
  const members = (codec as unknown as t.UnionType<Any[]>).types;
  const rest = members.filter((m) => !isUndefined(m));
  if (rest.length === members.length) return { codec: c, optional: false };
  if (rest.length === 0) return { codec: c, optional: true };
  const inner = rest.length === 1 ? rest[0]! : (t.union(rest as [Any, Any, ...Any[]]) as Any);
  // A description on the whole `T | undefined` stays with the property.
  return { codec: description === undefined ? inner : withDescription(inner, description), optional: true };
}

const isUndefined = (c: Any): boolean => c._tag === 'UndefinedType' || c._tag === 'VoidType';
const isNull = (c: Any): boolean => unwrap(c).codec._tag === 'NullType';

/** The properties of an object codec (type, partial, exact, intersection of those, this library's struct), or undefined. */
export function objectProps(c: Any): Map<string, Prop> | undefined {
  const { codec } = unwrap(c);
  const out = new Map<string, Prop>();
  const add = (props: Record<string, Any>, partial: boolean): void => {
    for (const [k, v] of Object.entries(props)) {
      const s = splitUndefined(v);
      const prev = out.get(k);
      // An intersection that names a key twice: required wins (the value must satisfy both).
      out.set(k, { codec: prev && !prev.optional ? prev.codec : s.codec, optional: (partial || s.optional) && (prev?.optional ?? true) });
    }
  };
  if (codec._tag === 'InterfaceType') add((codec as unknown as t.InterfaceType<Record<string, Any>>).props, false);
  else if (codec._tag === 'PartialType') add((codec as unknown as t.PartialType<Record<string, Any>>).props, true);
  else if (codec instanceof StructType) add(codec.props as Record<string, Any>, false);
  else if (codec._tag === 'IntersectionType') {
    for (const member of (codec as unknown as t.IntersectionType<Any[]>).types) {
      const inner = objectProps(member);
      if (!inner) return undefined;
      for (const [k, p] of inner) add({ [k]: p.optional ? (t.union([p.codec, t.undefined]) as Any) : p.codec }, false);
    }
  } else return undefined;
  return out;
}

/** `T | null` in the schema: a `type` list where the schema has one type, else `anyOf` with `{type: 'null'}`. */
function orNull(s: JsonSchema): JsonSchema {
  const type = s['type'];
  if (typeof type === 'string' && type !== 'object' && type !== 'array') {
    const out: Record<string, unknown> = { ...s, type: [type, 'null'] };
    if (Array.isArray(s['enum'])) out['enum'] = [...(s['enum'] as unknown[]), null];
    return out;
  }
  if (Array.isArray(type)) return type.includes('null') ? s : { ...s, type: [...type, 'null'], ...(Array.isArray(s['enum']) ? { enum: [...(s['enum'] as unknown[]), null] } : {}) };
  const { description, ...rest } = s;
  const anyOf = Array.isArray(s['anyOf']) && Object.keys(rest).length === 1 ? [...(s['anyOf'] as JsonSchema[])] : [rest];
  if (!anyOf.some((m) => m['type'] === 'null')) anyOf.push({ type: 'null' });
  return description === undefined ? { anyOf } : { anyOf, description };
}

function literalType(v: unknown, codecName: string, path: string): string {
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  throw new UnsupportedCodecError(codecName, path, 'only string, number and boolean literals can be sent');
}

function schemaOf(c: Any, path: string, strict: boolean): JsonSchema {
  const { codec, description } = unwrap(c);
  const s = bare(codec, path, strict);
  return description === undefined ? s : { ...s, description };
}

function bare(codec: Any, path: string, strict: boolean): JsonSchema {
  switch (codec._tag) {
    case 'StringType':
      return { type: 'string' };
    case 'NumberType':
      return { type: 'number' };
    case 'BooleanType':
      return { type: 'boolean' };
    case 'RefinementType': // only Int / Integer reach here (see unwrap)
      return { type: 'integer' };
    case 'NullType':
      return { type: 'null' };
    case 'LiteralType': {
      const v = (codec as unknown as t.LiteralType<string | number | boolean>).value;
      return { type: literalType(v, codec.name, path), enum: [v] };
    }
    case 'KeyofType':
      return { type: 'string', enum: Object.keys((codec as unknown as t.KeyofType<Record<string, unknown>>).keys) };
    case 'ArrayType':
    case 'ReadonlyArrayType':
      return { type: 'array', items: schemaOf((codec as unknown as t.ArrayType<Any>).type, `${path}[]`, strict) };
    case 'UnionType':
      return unionSchema((codec as unknown as t.UnionType<Any[]>).types, codec.name, path, strict);
  }
  const props = objectProps(codec);
  if (props) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const [k, p] of props) {
      const inner = schemaOf(p.codec, path ? `${path}.${k}` : k, strict);
      properties[k] = p.optional && strict ? orNull(inner) : inner;
      if (strict || !p.optional) required.push(k);
    }
    return { type: 'object', properties, required, additionalProperties: false };
  }
  const why = codec._tag === 'DictionaryType'
    ? 'a record has open keys, and strict mode needs every key listed (use t.type with the keys, or an array of entries)'
    : codec._tag === 'IntersectionType' ? 'only intersections of objects are supported' : 'not one of object, string, number, integer, boolean, literal, keyof, union, array, null';
  throw new UnsupportedCodecError(codec.name, path, why);
}

function unionSchema(members: readonly Any[], name: string, path: string, strict: boolean): JsonSchema {
  const rest = members.filter((m) => !isUndefined(m) && !isNull(m));
  if (rest.length < members.length) {
    // `T | null` (or `T | undefined` outside an object): the rest, nullable.
    if (rest.length === 0) return { type: 'null' };
    const inner = rest.length === 1 ? schemaOf(rest[0]!, path, strict) : unionSchema(rest, name, path, strict);
    return orNull(inner);
  }
  const schemas = rest.map((m, i) => schemaOf(m, `${path}|${i}`, strict));
  // Literals of one type (or keyofs) collapse into one enum, as a model reads them best.
  const type = schemas[0]?.['type'];
  if (schemas.every((s) => Array.isArray(s['enum']) && s['type'] === type && s['description'] === undefined)) {
    return { type, enum: schemas.flatMap((s) => s['enum'] as unknown[]) };
  }
  return { anyOf: schemas };
}

/**
 * The JSON Schema of an io-ts codec, for a function tool's `parameters` (or a structured output's `schema`).
 * Supported: `t.type` / `t.interface`, `t.partial`, `t.exact` / `t.strict`, intersections of objects, this
 * library's `struct` / `optional`, `t.string`, `t.number`, `t.Int` (`integer`), `t.boolean`, `t.literal`,
 * `t.keyof` (an enum), `t.union`, `t.array` / `t.readonlyArray`, `t.null` and `t.union([X, t.null])`
 * (nullable), optional properties, nested objects, and descriptions attached with `withDescription(codec, text)`.
 * Other refinements and brands are described by their base type (their check still runs when decoding).
 * Anything else (`t.record`, `t.unknown`, functions) throws `UnsupportedCodecError` naming where.
 *
 * With `strict` (the default) every object is `additionalProperties: false` with all its properties
 * `required`, and a property that may be absent is the union of its type and `null`: the model sends `null`
 * for "not given", which `argumentsFor` turns back into an absent key before decoding.
 *
 * ```ts
 * toJsonSchema(t.type({ city: t.string, days: optional(t.Int) }));
 * // { type: 'object', properties: { city: { type: 'string' }, days: { type: ['integer', 'null'] } },
 * //   required: ['city', 'days'], additionalProperties: false }
 * ```
 */
export function toJsonSchema(codec: t.Mixed, options: JsonSchemaOptions = {}): JsonSchema {
  return schemaOf(codec as Any, '', options.strict ?? true);
}

/**
 * `toJsonSchema` for a codec given as the option `option` (a tool's `parameters`, a format's `codec`): one the
 * derivation cannot express is an `InvalidOptionError` on that option, the `UnsupportedCodecError` its cause.
 */
export function optionSchema(option: string, codec: t.Mixed, strict: boolean): JsonSchema {
  try {
    return toJsonSchema(codec, { strict });
  } catch (e) {
    if (e instanceof UnsupportedCodecError) throw new InvalidOptionError(option, e.message, { cause: e });
    throw e;
  }
}

/**
 * The model's decoded JSON made ready for the codec: a `null` where the codec's property is optional and
 * not nullable means "absent" (that is how strict mode says it), so the key is removed. Unions try each
 * member. Returns a new value; the input is not changed.
 */
export function argumentsFor(codec: t.Mixed, value: unknown): unknown {
  const { codec: c } = unwrap(codec as Any);
  if (Array.isArray(value) && (c._tag === 'ArrayType' || c._tag === 'ReadonlyArrayType')) {
    const item = (c as unknown as t.ArrayType<Any>).type;
    return value.map((v) => argumentsFor(item, v));
  }
  if (c._tag === 'UnionType') {
    for (const m of (c as unknown as t.UnionType<Any[]>).types) {
      const candidate = argumentsFor(m, value);
      if (m.decode(candidate)._tag === 'Right') return candidate;
    }
    return value;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const props = objectProps(c);
  if (!props) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const p = props.get(k);
    if (p && v === null && p.optional && !p.codec.is(null)) continue;
    out[k] = p ? argumentsFor(p.codec, v) : v;
  }
  return out;
}
