// Errors that providers report inside a stream, in every shape seen in the wild, on either surface:
//   event: error + data: {"type":"error","code":…,"message":…}       the reference (sequence_number optional here)
//   event: error + data: {"message":…,"code":…,"param":…,"type":"server_error"}   flat, `type` = the error's type
//   data: {"error": {"message":…,"code":…,"failed_generation":…}}     with or without `event: error` (Groq)
//   data: {"id":…,"provider":…,"error":{"code":502,…},"choices":[…]}   an error beside chunk fields (OpenRouter)
//   data: {"error": "text"} or `event: error` with a non-object or non-JSON payload
// Each becomes one normalised `error` event, so the stream ends with a ResponseStreamError carrying the
// provider's message, code and param instead of a DecodeError that loses them.

/** The longest provider message kept (a hostile server could send megabytes). */
const MAX_MESSAGE = 2000;

/** A provider error in the reference `error` event shape, with the provider's own details kept. */
export interface ProviderErrorEvent {
  readonly type: 'error';
  readonly code: string | null;
  readonly message: string;
  readonly param: string | null;
  /** Present when the provider numbered the event. */
  readonly sequence_number?: number;
  /** The provider's nested error object (e.g. Groq's `failed_generation`), when it sent one. */
  readonly error?: Record<string, unknown>;
}

/** Marks a payload that was not JSON at all. */
export const NOT_JSON: unique symbol = Symbol('not JSON');

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const text = (v: unknown): string | null =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;

const capped = (s: string): string => (s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}…` : s);

/**
 * The error a payload reports, or `undefined` when it is not an error report. `name` is the SSE `event:`
 * line, `parsed` the JSON (or `NOT_JSON`), `raw` the data line. Documented events that happen to carry
 * an `error` key elsewhere (`response.failed` nests it under `response`) are not matched.
 */
export function providerError(name: string | undefined, parsed: unknown, raw: string): ProviderErrorEvent | undefined {
  const named = name === 'error' || (isRecord(parsed) && parsed['type'] === 'error');
  if (!isRecord(parsed)) {
    if (!named) return undefined;
    // `event: error` with a string, a number or plain text: the payload is the message.
    const message = parsed === NOT_JSON ? raw : typeof parsed === 'string' ? parsed : raw;
    return { type: 'error', code: null, message: capped(message.trim() || 'stream error'), param: null };
  }
  const nested = parsed['error'];
  const hasNested = nested !== undefined && nested !== null && nested !== false;
  if (!named && !hasNested) return undefined;
  // `{"type":"error","code":…}` without `error:` and without `event: error` is the reference event: its codec reads it.
  const details = isRecord(nested) ? nested : parsed;
  // A wrapper's own message stands in when the nested error has none.
  const message = typeof nested === 'string' ? nested : text(details['message']) ?? text(parsed['message']) ?? text(details['error_message']) ?? 'stream error';
  const seq = parsed['sequence_number'];
  const event: { -readonly [K in keyof ProviderErrorEvent]: ProviderErrorEvent[K] } = {
    type: 'error',
    // Without a code, the error's own type (`server_error`, `invalid_request_error`) is the best one.
    code: text(details['code']) ?? (details['type'] !== 'error' ? text(details['type']) : null),
    message: capped(message),
    param: text(details['param']),
  };
  if (typeof seq === 'number') event.sequence_number = seq;
  if (isRecord(nested)) event.error = nested;
  return event;
}
