import { errorPayload } from './chat-sse-error.js';

/**
 * The `event: error` SSE block a Responses stream that failed after it started ends with: numbered one past
 * `last` (the last sequence number written), and with no `id:`, so a reconnect resumes after the last real event.
 */
export function errorFrame(err: unknown, last: number | undefined): string {
  const p = errorPayload(err);
  const e = { type: 'error', code: p.code, message: p.message, param: p.param, sequence_number: last === undefined ? 0 : last + 1 };
  return `event: error\ndata: ${JSON.stringify(e)}\n\n`;
}
