// Errors that providers report inside a stream, in every shape seen in the wild, on either surface:
//   event: error + data: {"type":"error","code":…,"message":…}       the reference (sequence_number optional here)
//   event: error + data: {"message":…,"code":…,"param":…,"type":"server_error"}   flat, `type` = the error's type
//   data: {"error": {…}}  or  {"error": "text"}                        with or without `event: error` (Groq)
//   data: {"id":…,"provider":…,"error":{"code":502,…},"choices":[…]}   an error beside chunk fields (OpenRouter)
//   event: error + data: [{"error": {…}}], null, 42, "text", plain text, {}   anything at all
// Each becomes one normalised `error` event, so the stream ends with a ResponseStreamError carrying the
// provider's message, code and param (whatever of them can be found) instead of a DecodeError that loses them.
// Only own properties are read: nothing a payload did not say comes in through a prototype.

/** The longest provider message kept (a hostile server could send megabytes). */
const MAX_MESSAGE = 2000;
/** The longest code or param kept: they go into the error's message too. */
const MAX_FIELD = 256;
/** What an error report that says nothing readable is called. */
export const GENERIC_MESSAGE = 'stream error';

/** A provider error in the reference `error` event shape, with the provider's own details kept. */
export interface ProviderErrorEvent {
  readonly type: 'error';
  readonly code: string | null;
  readonly message: string;
  readonly param: string | null;
  /** Present when the provider numbered the event (a non-negative integer). */
  readonly sequence_number?: number;
  /** The provider's nested error object (e.g. Groq's `failed_generation`), when it sent one. */
  readonly error?: Record<string, unknown>;
}

/** Marks a payload that was not JSON at all. */
export const NOT_JSON: unique symbol = Symbol('not JSON');

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `o[key]` when `o` holds it itself (never through its prototype). */
const own = (o: Record<string, unknown>, key: string): unknown => (Object.prototype.hasOwnProperty.call(o, key) ? o[key] : undefined);

/** A string as it is; a number or boolean written out (`"code": 429`); anything else is not text. */
const text = (v: unknown): string | null =>
  typeof v === 'string' ? v : (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean' ? String(v) : null;

/** Text that says something (not empty, not only spaces). */
const said = (v: unknown): string | null => {
  const s = text(v);
  return s !== null && s.trim() !== '' ? s : null;
};

/** A string that says something: a flag (`"error": true`) or a number in place of an error object is no message. */
const words = (v: unknown): string | null => (typeof v === 'string' ? said(v) : null);

const cut = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max)}…` : s);
const field = (v: unknown): string | null => {
  const s = said(v);
  return s === null ? null : cut(s, MAX_FIELD);
};

/** A valid sequence number, or `undefined`: a provider's error report may number itself with anything. */
export function sequenceNumberOf(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** The first entry of a list that is a record (`[{"error": {…}}]`, as some gateways send a list of errors). */
const firstRecord = (v: readonly unknown[]): Record<string, unknown> | undefined => v.find(isRecord);

export interface ErrorDetails {
  readonly code: string | null;
  readonly message: string;
  readonly param: string | null;
}

/**
 * The code, message and param an error object reports, read from its nested `error` (an object, a list of
 * them, or a string) and its own top level, whatever is missing or of the wrong type. Never throws.
 */
export function errorDetails(report: Record<string, unknown>): ErrorDetails & { readonly nested?: Record<string, unknown> } {
  const raw = own(report, 'error');
  const nested = isRecord(raw) ? raw : Array.isArray(raw) ? firstRecord(raw) : undefined;
  const details = nested ?? report;
  // The nested error's own words first; a wrapper's message stands in when it has none.
  const message =
    words(raw) ?? said(own(details, 'message')) ?? said(own(report, 'message')) ?? said(own(details, 'error_message')) ?? said(own(report, 'detail'));
  const type = own(details, 'type');
  return {
    // Without a code, the error's own type (`server_error`, `invalid_request_error`) is the best one.
    code: field(own(details, 'code')) ?? field(own(report, 'code')) ?? (type !== 'error' ? field(type) : null),
    message: cut(message ?? GENERIC_MESSAGE, MAX_MESSAGE),
    param: field(own(details, 'param')) ?? field(own(report, 'param')),
    ...(nested !== undefined ? { nested } : {}),
  };
}

/** A payload that names nothing: its text (a JSON string's content, else the data as sent: `null`, `42`, plain text) is the message. */
function plainReport(parsed: unknown, raw: string): ProviderErrorEvent {
  const message = typeof parsed === 'string' ? said(parsed) : said(raw);
  return { type: 'error', code: null, message: cut(message?.trim() ?? GENERIC_MESSAGE, MAX_MESSAGE), param: null };
}

/**
 * The error a payload reports, or `undefined` when it is not an error report. `name` is the SSE `event:`
 * line, `parsed` the JSON (or `NOT_JSON`), `raw` the data line. `event: error` is an error report whatever
 * its data; without it, a payload is one when its `type` is `error` or it carries a truthy `error`.
 * Documented events that happen to carry an `error` key elsewhere (`response.failed` nests it under
 * `response`) are not matched. Never throws.
 */
export function providerError(name: string | undefined, parsed: unknown, raw: string): ProviderErrorEvent | undefined {
  const named = name === 'error';
  if (Array.isArray(parsed)) {
    if (!named) return undefined;
    const first = firstRecord(parsed);
    return first !== undefined ? fromRecord(first) : plainReport(parsed, raw);
  }
  if (!isRecord(parsed)) return named ? plainReport(parsed, raw) : undefined;
  const nested = own(parsed, 'error');
  const hasNested = nested !== undefined && nested !== null && nested !== false;
  // `{"type":"error","code":…}` without `error:` and without `event: error` is the reference event.
  if (!named && !hasNested && own(parsed, 'type') !== 'error') return undefined;
  return fromRecord(parsed);
}

function fromRecord(parsed: Record<string, unknown>): ProviderErrorEvent {
  const { nested, ...details } = errorDetails(parsed);
  const seq = sequenceNumberOf(own(parsed, 'sequence_number'));
  return {
    type: 'error',
    ...details,
    ...(seq !== undefined ? { sequence_number: seq } : {}),
    ...(nested !== undefined ? { error: nested } : {}),
  };
}
