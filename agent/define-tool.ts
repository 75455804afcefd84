import * as t from 'io-ts';
import type { Observable } from 'rxjs';
import type { AgentCall } from './events.js';
import { argumentsFor, optionSchema, type JsonSchema } from '../lib/schema/json-schema.js';
import { codecPath } from '../lib/schema/codec-path.js';
import { InvalidOptionError } from '../lib/errors.js';
import { invalidOption, oneOf, optionalFunction, positiveDurationMs } from '../lib/options.js';
import { thrownText } from './failure-text.js';

/** What `execute` receives besides the arguments. */
export interface ToolContext {
  /** Aborted when the run is unsubscribed or the call times out: pass it to fetch, child processes… */
  readonly signal: AbortSignal;
  readonly callId: string;
  /** The turn (1-based). */
  readonly turn: number;
  readonly call: AgentCall;
}

/** A tool's answer: a value, a Promise of one, or an Observable (its last value is the result). */
export type ToolReturn<R> = R | PromiseLike<R> | Observable<R>;

/** The outcome of checking arguments: the value to run with, or a message for the model. */
export type Checked<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: string };

/**
 * What checks a call's arguments in the plain JSON Schema form: a type guard / boolean function (an Ajv
 * compiled schema, whose `errors` are read for the message), or a function returning `{ success, data?, error? }`
 * (a zod `safeParse`, say). Named apart from the decoders' `validate` mode, which is a setting, not a function.
 */
export type ArgumentsCheck<A> =
  | ((args: unknown) => args is A)
  | ((args: unknown) => boolean)
  | ((args: unknown) => { readonly success: boolean; readonly data?: A; readonly error?: unknown });

interface ToolOptionsBase<A, R> {
  /** Default: the key the tool is registered under in `runAgent`'s `tools` record. */
  readonly name?: string;
  readonly description?: string;
  /** `true` (default): `strict: true` function calling, the schema in strict-mode shape. */
  readonly strict?: boolean;
  /** Ask `options.approve(call)` before running (always, or when this returns true for the arguments). */
  readonly needsApproval?: boolean | ((args: A, call: AgentCall) => boolean);
  /** How long one call may run (ms); overrides `runAgent`'s `toolTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Runs the call. Strings go to the model as they are, other values as JSON. */
  execute(args: A, context: ToolContext): ToolReturn<R>;
}

export interface CodecToolOptions<C extends t.Mixed, R> extends ToolOptionsBase<t.TypeOf<C>, R> {
  /** The arguments as an io-ts codec: the JSON Schema is derived from it and the model's arguments decoded with it. */
  readonly parameters: C;
  /** Checks what `execute` returned; a value it refuses is sent as an error (`invalid_result`). */
  readonly result?: t.Type<R, unknown, unknown>;
}

export interface SchemaToolOptions<A, R> extends ToolOptionsBase<A, R> {
  /** A JSON Schema you already have, sent as it is. */
  readonly parameters: JsonSchema;
  /** Checks the parsed arguments (without one, any JSON value is passed to `execute`). */
  readonly checkArguments?: ArgumentsCheck<A>;
  readonly result?: t.Type<R, unknown, unknown>;
}

/** A function tool ready for `runAgent`: its definition for the request, and how to check and run a call. */
export interface Tool<A = unknown, R = unknown> {
  readonly name: string | undefined;
  readonly description: string | undefined;
  readonly parameters: JsonSchema;
  readonly strict: boolean;
  readonly timeoutMs: number | undefined;
  /** The `tools` entry of the request. */
  definition(name: string): FunctionToolDefinition;
  /** Checks the parsed JSON of a call's `arguments`. */
  check(json: unknown): Checked<A>;
  /** Why a result cannot be sent, or `undefined`. */
  checkResult(result: unknown): string | undefined;
  needsApproval(args: A, call: AgentCall): boolean;
  execute(args: A, context: ToolContext): ToolReturn<R>;
}

/** `{ type: 'function', name, description, parameters, strict }`, as `tools` takes it. */
export type FunctionToolDefinition = {
  readonly type: 'function';
  readonly name: string;
  readonly description?: string;
  readonly parameters: JsonSchema;
  readonly strict: boolean;
};

const isCodec = (u: unknown): u is t.Mixed => u instanceof t.Type;

/**
 * Defines a function tool. With an io-ts codec as `parameters`, the JSON Schema sent to the model is derived
 * from it (`toJsonSchema`, strict-mode valid) and the model's arguments are decoded with the same codec, after
 * `null`s standing for absent optional properties are removed. With a plain JSON Schema, give a
 * `checkArguments` function (Ajv, zod's `safeParse`, a type guard), or none to take any JSON.
 *
 * Arguments that are not JSON or do not decode, a throwing `execute`, a timeout or an invalid result never
 * end the run: the model gets an error message as the call's output and may try again.
 *
 * ```ts
 * const getWeather = defineTool({
 *   description: 'The current weather in a city',
 *   parameters: t.type({ city: withDescription(t.string, 'e.g. Paris'), unit: t.keyof({ celsius: null, fahrenheit: null }) }),
 *   execute: ({ city, unit }, { signal }) => fetchWeather(city, unit, signal),   // value, Promise or Observable
 * });
 * runAgent({ model: 'gpt-5.4-mini', input: 'Weather in Paris?' }, { tools: { get_weather: getWeather } });
 * ```
 */
export function defineTool<C extends t.Mixed, R>(options: CodecToolOptions<C, R>): Tool<t.TypeOf<C>, R>;
export function defineTool<A = unknown, R = unknown>(options: SchemaToolOptions<A, R>): Tool<A, R>;
export function defineTool(options: CodecToolOptions<t.Mixed, unknown> | SchemaToolOptions<unknown, unknown>): Tool {
  checkToolOptions(options);
  const strict = options.strict ?? true;
  const codec = isCodec(options.parameters) ? options.parameters : undefined;
  const parameters = codec ? schemaOf(codec, strict) : (options.parameters as JsonSchema);
  const checkArguments = codec ? undefined : optionalFunction('checkArguments', (options as SchemaToolOptions<unknown, unknown>).checkArguments);
  const needs = options.needsApproval;
  const result = options.result;
  return {
    name: options.name,
    description: options.description,
    parameters,
    strict,
    timeoutMs: options.timeoutMs,
    definition: (name) => ({ type: 'function', name, ...(options.description !== undefined ? { description: options.description } : {}), parameters, strict }),
    check: (json) => (codec ? decodeWith(codec, argumentsFor(codec, json)) : checkWith(checkArguments, json)),
    checkResult: (value) => {
      if (result && !result.is(value)) return `the result does not match ${result.name}`;
      return undefined;
    },
    needsApproval: (args, call) => (typeof needs === 'function' ? needs(args, call) : needs === true),
    execute: options.execute,
  };
}

function checkToolOptions(options: CodecToolOptions<t.Mixed, unknown> | SchemaToolOptions<unknown, unknown>): void {
  if (typeof options.execute !== 'function') throw invalidOption('execute', 'a function', options.execute);
  const p: unknown = options.parameters;
  if (!isCodec(p) && (typeof p !== 'object' || p === null || Array.isArray(p))) throw invalidOption('parameters', 'an io-ts codec or a JSON Schema object', p);
  if (options.name !== undefined && typeof options.name !== 'string') throw invalidOption('name', 'a string', options.name);
  oneOf('strict', options.strict, [true, false]);
  if (typeof options.needsApproval !== 'boolean') optionalFunction('needsApproval', options.needsApproval);
  positiveDurationMs('timeoutMs', options.timeoutMs);
  if (options.result !== undefined && !isCodec(options.result)) throw invalidOption('result', 'an io-ts codec', options.result);
}

/** The JSON Schema of a parameters codec; one that cannot be a tool's parameters is an invalid `parameters` option. */
function schemaOf(codec: t.Mixed, strict: boolean): JsonSchema {
  const schema = optionSchema('parameters', codec, strict);
  // The API takes only an object schema as a function's parameters (a 400 otherwise, strict or not): say so now.
  if (schema['type'] !== 'object') {
    throw new InvalidOptionError('parameters', `${codec.name}: the parameters of a tool must be an object (t.type, t.partial, t.intersection of them…), not a nullable object, a union or another type`);
  }
  return schema;
}

function decodeWith(codec: t.Mixed, value: unknown): Checked<unknown> {
  const r = codec.decode(value);
  return r._tag === 'Right' ? { ok: true, value: r.right } : { ok: false, error: describeErrors(r.left) };
}

function checkWith(check: ArgumentsCheck<unknown> | undefined, value: unknown): Checked<unknown> {
  if (!check) return { ok: true, value };
  let r: unknown;
  try {
    r = check(value);
  } catch (e) {
    return { ok: false, error: `checkArguments threw: ${thrownText(e) ?? 'unknown error'}` };
  }
  try {
    return checkAnswer(check, r, value);
  } catch (e) {
    // Its answer cannot be read (a throwing getter, a Proxy): a refusal, as a throw is.
    return { ok: false, error: `the answer of checkArguments cannot be read: ${thrownText(e) ?? 'unknown error'}` };
  }
}

/** What checkArguments answered: `true`, `false` (Ajv, with `errors`) or `{ success, data?, error? }` (zod's safeParse). */
function checkAnswer(check: ArgumentsCheck<unknown>, r: unknown, value: unknown): Checked<unknown> {
  if (r === true) return { ok: true, value };
  if (r === false) return { ok: false, error: ajvErrors((check as { errors?: unknown }).errors) ?? 'the arguments do not match the schema' };
  const o = r as { success?: unknown; data?: unknown; error?: unknown };
  if (o?.success === true) return { ok: true, value: 'data' in o && o.data !== undefined ? o.data : value };
  return { ok: false, error: thrownText(o?.error) ?? 'the arguments do not match the schema' };
}

/** Ajv's `errors`: `[{ instancePath, message }]`. */
function ajvErrors(errors: unknown): string | undefined {
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  // Only strings are taken (String() of an object would call its toString, which may throw).
  return errors.slice(0, 5).map((e: { instancePath?: unknown; message?: unknown }) => `${typeof e.instancePath === 'string' && e.instancePath ? e.instancePath : '(root)'} ${typeof e.message === 'string' ? e.message : 'is invalid'}`).join('; ');
}

/** io-ts errors as `path: expected T, got x`, the path without union branches; five at most. */
export function describeErrors(errors: t.Errors): string {
  const lines = errors.slice(0, 5).map((e) => {
    const expected = e.context[e.context.length - 1]?.type.name ?? 'a valid value';
    return `${codecPath(e)}: ${e.message ?? `expected ${expected}, got ${shown(e.value)}`}`;
  });
  const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
  return `${[...new Set(lines)].join('; ')}${more}`;
}

function shown(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return v.length > 30 ? `a string of ${v.length} characters` : JSON.stringify(v);
  return Array.isArray(v) ? 'an array' : 'an object';
}
