// The SSE frames a stream that fails after it started ends with, for a remote client: written by the
// operators that encode SSE (toResponsesSSE, toChatSSE) and by the gateway, which must say the same thing.
// Here on the ground floor so both stand on it (the gateway may not reach into operators/internal).
import { OpenAIRxError, ResponseStreamError } from '../errors.js';

/**
 * What an SSE encoder may tell a remote client about an error: the library's own errors say what
 * went wrong (and never hold a key); anything else is reported without its message.
 */
export function errorPayload(err: unknown): { code: string; message: string; param: string | null } {
  if (err instanceof ResponseStreamError) return { code: err.code, message: err.message, param: err.param ?? null };
  if (err instanceof OpenAIRxError) return { code: err.code, message: err.message, param: null };
  return { code: 'server_error', message: 'the upstream stream failed', param: null };
}

/**
 * The `event: error` SSE block a Responses stream that failed after it started ends with: numbered one past
 * `last` (the last sequence number written), and with no `id:`, so a reconnect resumes after the last real event.
 */
export function responsesErrorFrame(err: unknown, last: number | undefined): string {
  const p = errorPayload(err);
  const e = { type: 'error', code: p.code, message: p.message, param: p.param, sequence_number: last === undefined ? 0 : last + 1 };
  return `event: error\ndata: ${JSON.stringify(e)}\n\n`;
}

/** The error chunk a Chat Completions stream that fails after its start ends with, as the API sends it mid-stream (no `[DONE]`). */
export function chatErrorFrame(err: unknown): string {
  const p = errorPayload(err);
  return `data: ${JSON.stringify({ error: { message: p.message, type: 'server_error', code: p.code, param: p.param } })}\n\n`;
}
