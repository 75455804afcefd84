// Reading an untrusted Chat Completions request: each reader checks one field's JSON type and throws a
// ChatRequestRefusal naming its path (`messages[2].content[1].type`), which chatRequestToResponses turns
// into a 400. Values are never quoted in messages except short enum-like strings (they may carry user content).

/** A JSON object as read from a request body. */
export type Obj = Readonly<Record<string, unknown>>;

/** Why a chat request cannot be mapped: the OpenAI-style `param` path, message and `code`. */
export class ChatRequestRefusal extends Error {
  override readonly name = 'ChatRequestRefusal';
  constructor(
    /** `null` when the body as a whole is wrong. */
    readonly param: string | null,
    message: string,
    readonly code: 'invalid_type' | 'invalid_value' | 'missing_required_parameter' | 'unsupported_parameter' | 'unsupported_value' | 'unknown_parameter',
  ) {
    super(message);
  }
}

/** Present and not null: the API reads an explicit `null` as "not set". */
export const given = (u: unknown): boolean => u !== undefined && u !== null;

/** A JSON object (not null, not an array). */
export const isObj = (u: unknown): u is Obj => typeof u === 'object' && u !== null && !Array.isArray(u);

function typeName(u: unknown): string {
  if (u === null) return 'null';
  if (Array.isArray(u)) return 'an array';
  return typeof u === 'object' ? 'an object' : `a ${typeof u}`;
}

/** A short, safe rendering of an enum-like value for a message: strings up to 40 characters, else its type. */
function shown(u: unknown): string {
  return typeof u === 'string' && u.length <= 40 && /^[\w.\-/: ]*$/.test(u) ? `'${u}'` : typeName(u);
}

/** Throws: `path` holds the wrong JSON type. */
export function invalidType(path: string, expected: string, got: unknown): never {
  throw new ChatRequestRefusal(path, `Invalid type for '${path}': expected ${expected}, but got ${typeName(got)}.`, 'invalid_type');
}

/** Throws: `path` is required and absent. */
export function missing(path: string): never {
  throw new ChatRequestRefusal(path, `Missing required parameter: '${path}'.`, 'missing_required_parameter');
}

/** Throws: `path` holds a value outside `supported`. */
export function invalidValue(path: string, got: unknown, supported: readonly string[]): never {
  const list = supported.map((s) => `'${s}'`).join(', ');
  throw new ChatRequestRefusal(path, `Invalid value for '${path}': ${shown(got)}. Supported values are: ${list}.`, 'invalid_value');
}

/** A field or value this gateway cannot express in a Responses request: `why` says what to do instead. */
export function unsupported(path: string, why: string, code: 'unsupported_parameter' | 'unsupported_value' = 'unsupported_parameter'): never {
  throw new ChatRequestRefusal(path, `'${path}' is not supported by this gateway (Chat Completions served from the Responses API): ${why}`, code);
}

/** `u` as an object, else a refusal naming `path` (absent: missing). */
export function obj(u: unknown, path: string): Obj {
  if (u === undefined) missing(path);
  return isObj(u) ? u : invalidType(path, 'an object', u);
}

/** `u` as an array, else a refusal naming `path` (absent: missing). */
export function arr(u: unknown, path: string): readonly unknown[] {
  if (u === undefined) missing(path);
  return Array.isArray(u) ? u : invalidType(path, 'an array', u);
}

/** `u` as a string, else a refusal naming `path` (absent: missing). */
export function str(u: unknown, path: string): string {
  if (u === undefined) missing(path);
  return typeof u === 'string' ? u : invalidType(path, 'a string', u);
}

/** `undefined` and `null` read as absent (the API treats an explicit null as "use the default"). */
export function optStr(u: unknown, path: string): string | undefined {
  return u === undefined || u === null ? undefined : str(u, path);
}

/** A finite number, or `undefined` when absent or null. */
export function optNum(u: unknown, path: string): number | undefined {
  if (u === undefined || u === null) return undefined;
  return typeof u === 'number' && Number.isFinite(u) ? u : invalidType(path, 'a number', u);
}

/** An integer, or `undefined` when absent or null. */
export function optInt(u: unknown, path: string): number | undefined {
  if (u === undefined || u === null) return undefined;
  return typeof u === 'number' && Number.isInteger(u) ? u : invalidType(path, 'an integer', u);
}

/** A boolean, or `undefined` when absent or null. */
export function optBool(u: unknown, path: string): boolean | undefined {
  if (u === undefined || u === null) return undefined;
  return typeof u === 'boolean' ? u : invalidType(path, 'a boolean', u);
}

/** An object, or `undefined` when absent or null. */
export function optObj(u: unknown, path: string): Obj | undefined {
  return u === undefined || u === null ? undefined : obj(u, path);
}

/** One of `values` (a string), or `undefined` when absent. */
export function optEnum<T extends string>(u: unknown, path: string, values: readonly T[]): T | undefined {
  const s = optStr(u, path);
  if (s === undefined) return undefined;
  return (values as readonly string[]).includes(s) ? (s as T) : invalidValue(path, s, values);
}

/** Refuses any key of `o` not in `known`: the API refuses unknown parameters too, and a silent drop hides a mistake. */
export function onlyKeys(o: Obj, known: ReadonlySet<string> | readonly string[], path: string): void {
  for (const key of Object.keys(o)) {
    if (Array.isArray(known) ? known.includes(key) : (known as ReadonlySet<string>).has(key)) continue;
    const at = path === '' ? key : `${path}.${key}`;
    throw new ChatRequestRefusal(at, `Unrecognized request argument supplied: '${at}'.`, 'unknown_parameter');
  }
}

