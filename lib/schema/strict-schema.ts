import type { JsonSchema } from './json-schema.js';

// OpenAI's rules for a schema used with `strict: true` (function calling and structured outputs), as a checker:
// what the API would refuse with a 400, found before a request is sent.

/** The limits of strict mode. */
export const STRICT_LIMITS = {
  /** Properties in the whole schema. */
  maxProperties: 5000,
  /** Levels of object nesting. */
  maxDepth: 10,
  /** Enum values in the whole schema. */
  maxEnumValues: 1000,
  /** Characters of all property names, definition names, enum values and const values together. */
  maxStringLength: 120_000,
  /** One enum with more than 250 values may hold this many characters of string values. */
  maxLargeEnumLength: 15_000,
} as const;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const COMMON = new Set(['type', 'description', 'enum', 'const', 'anyOf', '$ref', '$defs', 'definitions', 'title', 'default']);
const BY_TYPE: Record<string, ReadonlySet<string>> = {
  string: new Set(['pattern', 'format']),
  number: new Set(['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum']),
  integer: new Set(['multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum']),
  array: new Set(['items', 'minItems', 'maxItems']),
  object: new Set(['properties', 'required', 'additionalProperties']),
};

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

/**
 * The strict-mode rules a schema breaks, each naming where (`$.properties.city`), or `[]` when it is valid:
 * the root is an object (not `anyOf`); every object has `additionalProperties: false` and lists every property
 * in `required`; only the supported types and keywords appear (no `allOf`, `oneOf`, `not`, `if`,
 * `patternProperties`…); arrays have `items`; enum values match their type; `$ref`s point into the schema; and
 * the limits of `STRICT_LIMITS` hold.
 *
 * ```ts
 * strictSchemaViolations(toJsonSchema(codec));   // []
 * strictSchemaViolations({ type: 'object', properties: { a: { type: 'string' } } });
 * // ['$: additionalProperties must be false', '$: required must list every property (missing: a)']
 * ```
 */
export function strictSchemaViolations(schema: JsonSchema): string[] {
  const problems: string[] = [];
  let properties = 0;
  let enumValues = 0;
  let strings = 0;
  const defs = new Set<string>();
  for (const key of ['$defs', 'definitions']) {
    const d = schema[key];
    if (isRecord(d)) for (const name of Object.keys(d)) defs.add(`#/${key}/${name}`);
  }
  if (schema['type'] !== 'object') problems.push('$: the root must be an object schema (type: "object"), not anyOf or another type');

  const visit = (s: unknown, path: string, depth: number): void => {
    if (!isRecord(s)) return void problems.push(`${path}: a schema must be an object`);
    if (typeof s['$ref'] === 'string') {
      if (!s['$ref'].startsWith('#') || (s['$ref'] !== '#' && !defs.has(s['$ref']))) problems.push(`${path}: $ref ${s['$ref']} does not point into the schema`);
      return;
    }
    const raw = s['type'];
    const types = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    for (const t of types) if (typeof t !== 'string' || !TYPES.has(t)) problems.push(`${path}: unsupported type ${JSON.stringify(t)}`);
    if (raw === undefined && s['anyOf'] === undefined && s['enum'] === undefined && s['const'] === undefined) problems.push(`${path}: a schema needs a type, anyOf, enum or const`);
    const allowed = new Set(COMMON);
    for (const t of types) for (const k of BY_TYPE[String(t)] ?? []) allowed.add(k);
    for (const k of Object.keys(s)) if (!allowed.has(k)) problems.push(`${path}: keyword ${k} is not supported${types.length ? ` for type ${types.join('|')}` : ''}`);

    if (Array.isArray(s['enum'])) {
      const values = s['enum'] as unknown[];
      enumValues += values.length;
      let length = 0;
      for (const v of values) {
        const t = v === null ? 'null' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;
        const fits = types.length === 0 || types.includes(t) || (t === 'integer' && types.includes('number'));
        if (!fits || !['string', 'number', 'integer', 'boolean', 'null'].includes(t)) problems.push(`${path}: enum value ${JSON.stringify(v)} does not match type ${types.join('|')}`);
        if (typeof v === 'string') length += v.length;
      }
      strings += length;
      if (values.length > 250 && length > STRICT_LIMITS.maxLargeEnumLength) problems.push(`${path}: an enum of more than 250 values may hold ${STRICT_LIMITS.maxLargeEnumLength} characters (has ${length})`);
    }
    if (typeof s['const'] === 'string') strings += s['const'].length;

    if (types.includes('object')) {
      if (depth > STRICT_LIMITS.maxDepth) problems.push(`${path}: nested deeper than ${STRICT_LIMITS.maxDepth} levels`);
      const props = isRecord(s['properties']) ? s['properties'] : {};
      if (!isRecord(s['properties'])) problems.push(`${path}: an object needs properties`);
      if (s['additionalProperties'] !== false) problems.push(`${path}: additionalProperties must be false`);
      const required = Array.isArray(s['required']) ? (s['required'] as unknown[]) : [];
      const missing = Object.keys(props).filter((k) => !required.includes(k));
      if (missing.length > 0) problems.push(`${path}: required must list every property (missing: ${missing.join(', ')})`);
      const extra = required.filter((k) => typeof k !== 'string' || !(k in props));
      if (extra.length > 0) problems.push(`${path}: required names what is not a property (${extra.map(String).join(', ')})`);
      for (const [k, v] of Object.entries(props)) {
        properties++;
        strings += k.length;
        visit(v, `${path}.properties.${k}`, depth + 1);
      }
    }
    if (types.includes('array')) {
      if (s['items'] === undefined) problems.push(`${path}: an array needs items`);
      else visit(s['items'], `${path}.items`, depth);
    }
    if (s['anyOf'] !== undefined) {
      if (!Array.isArray(s['anyOf']) || s['anyOf'].length === 0) problems.push(`${path}: anyOf must be a non-empty list`);
      else (s['anyOf'] as unknown[]).forEach((m, i) => visit(m, `${path}.anyOf[${i}]`, depth));
    }
    for (const key of ['$defs', 'definitions']) {
      const d = s[key];
      if (isRecord(d)) for (const [name, def] of Object.entries(d)) {
        strings += name.length;
        visit(def, `${path}.${key}.${name}`, depth);
      }
    }
  };
  visit(schema, '$', 1);
  if (properties > STRICT_LIMITS.maxProperties) problems.push(`$: ${properties} properties (at most ${STRICT_LIMITS.maxProperties})`);
  if (enumValues > STRICT_LIMITS.maxEnumValues) problems.push(`$: ${enumValues} enum values (at most ${STRICT_LIMITS.maxEnumValues})`);
  if (strings > STRICT_LIMITS.maxStringLength) problems.push(`$: ${strings} characters of names and values (at most ${STRICT_LIMITS.maxStringLength})`);
  return problems;
}
