import { OpenAIRxError, ResponseStreamError } from '../../lib/errors.js';

/**
 * What an SSE encoder may tell a remote client about an error: the library's own errors say what
 * went wrong (and never hold a key); anything else is reported without its message.
 */
export function errorPayload(err: unknown): { code: string; message: string; param: string | null } {
  if (err instanceof ResponseStreamError) return { code: err.code, message: err.message, param: err.param ?? null };
  if (err instanceof OpenAIRxError) return { code: err.code, message: err.message, param: null };
  return { code: 'server_error', message: 'the upstream stream failed', param: null };
}
