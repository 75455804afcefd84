import * as t from 'io-ts';
import { InvalidOptionError } from '../errors.js';
import { invalidOption, oneOf } from '../options.js';
import { optionSchema, type JsonSchema } from './json-schema.js';
import { strictSchemaViolations } from './strict-schema.js';

// A structured output declared with the io-ts codec that will decode it: the request's `text.format`, its schema
// derived by the same toJsonSchema as a tool's parameters (one derivation in the package).

/** The `text.format` of a Responses request that asks for JSON matching a schema. */
export type JsonSchemaTextFormat = {
  readonly type: 'json_schema';
  /** The format's name: a–z, A–Z, 0–9, `_` and `-`, at most 64 characters. */
  readonly name: string;
  readonly description?: string;
  /** `true`: the model's output always matches the schema (which must then be strict-mode valid). */
  readonly strict?: boolean;
  readonly schema: JsonSchema;
};

/** What a Responses request's `text.format` can be: plain text, any JSON object, or JSON matching a schema. */
export type ResponseTextFormat = { readonly type: 'text' } | { readonly type: 'json_object' } | JsonSchemaTextFormat;

export interface JsonSchemaFormatOptions {
  /** The format's name, as the API takes it: a–z, A–Z, 0–9, `_` and `-`, at most 64 characters. */
  readonly name: string;
  /** What the output is for; sent only when given. */
  readonly description?: string;
  /**
   * `true` (default): strict structured outputs. Every property is required, an optional one is nullable (the
   * model sends `null` for "absent"), objects have `additionalProperties: false`, and the schema is checked
   * against the API's strict-mode rules here. `false`: optional properties are left out of `required`.
   */
  readonly strict?: boolean;
}

/** The API's rule for a format's name. */
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The `text.format` of a Responses request asking for JSON of the codec's shape:
 * `{ type: 'json_schema', name, description?, strict, schema }`. The schema is derived from the codec exactly as
 * `defineTool` derives a tool's parameters (`toJsonSchema`): strict by default, so every property is required, an
 * optional one nullable, and every object `additionalProperties: false`.
 *
 * A name the API would refuse is an `InvalidOptionError` on `name`; a codec the schema cannot express (a record,
 * `unknown`…), or whose strict schema breaks the API's rules (`strictSchemaViolations`: a root that is not an
 * object, too deep, too many properties…), is an `InvalidOptionError` on `codec`, with the `UnsupportedCodecError`
 * as its cause where there is one.
 *
 * ```ts
 * const Weather = t.type({ city: t.string, temperature: t.number, conditions: t.keyof({ sunny: null, cloudy: null, rain: null }) });
 *
 * streamResponse({ model: 'gpt-5.4-mini', input: 'The weather in Paris', text: { format: jsonSchemaFormat(Weather, { name: 'weather' }) } })
 *   .pipe(outputText())
 *   .subscribe((json) => render(json));
 * ```
 */
export function jsonSchemaFormat(codec: t.Mixed, options: JsonSchemaFormatOptions): JsonSchemaTextFormat & { readonly strict: boolean } {
  if (!(codec instanceof t.Type)) throw invalidOption('codec', 'an io-ts codec', codec);
  if (typeof options !== 'object' || options === null) throw invalidOption('options', 'an object with a name', options);
  const { name, description } = options;
  if (typeof name !== 'string' || !NAME.test(name)) throw invalidOption('name', 'a name of 1 to 64 characters a–z, A–Z, 0–9, _ or -', name);
  if (description !== undefined && typeof description !== 'string') throw invalidOption('description', 'a string', description);
  const strict = oneOf('strict', options.strict, [true, false], true);
  const schema = schemaOf(codec, strict);
  return { type: 'json_schema', name, ...(description !== undefined ? { description } : {}), strict, schema };
}

function schemaOf(codec: t.Mixed, strict: boolean): JsonSchema {
  const schema = optionSchema('codec', codec, strict);
  // What the API would refuse with a 400 is said now, naming the codec (a nullable object or a union at the root…).
  const problems = strict ? strictSchemaViolations(schema) : [];
  if (problems.length > 0) throw new InvalidOptionError('codec', `${codec.name}: not a valid strict schema: ${problems.slice(0, 5).join('; ')}`);
  return schema;
}
