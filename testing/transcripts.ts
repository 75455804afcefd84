// Recorded SSE transcripts as the test servers serve them: split into events, sliced for resumes,
// or generated for tests that need a long one.
import { sseMessagesOf, wholeMessageText } from '../lib/sse/text.js';

/** One SSE event of a transcript: its raw text (blank line included) and, where it has one, its JSON payload. */
export interface TranscriptEvent {
  readonly raw: string;
  /** Its `data:` lines, joined with LF. */
  readonly data: string;
  readonly payload: Record<string, unknown> | undefined;
}

export interface ParsedTranscript {
  readonly kind: 'responses' | 'chat';
  readonly events: readonly TranscriptEvent[];
  /** The response id of a Responses transcript (from the first event carrying one). */
  readonly responseId: string | undefined;
}

/**
 * Splits SSE text into events as a client reads it (the package's SSE scanner: CR, LF and CRLF line ends, a
 * BOM, comments, multi-line data, a last event without its blank line), keeping each event's text as recorded:
 * the comments and blank lines before it included, a missing blank line after the last one added. What follows
 * the last event (a comment, a name without data) is no event and is left out.
 */
export function parseTranscript(sse: string): ParsedTranscript {
  const events: TranscriptEvent[] = [];
  for (const m of sseMessagesOf(sse)) {
    let payload: Record<string, unknown> | undefined;
    if (m.data !== '[DONE]') {
      try {
        const u = JSON.parse(m.data) as unknown;
        if (typeof u === 'object' && u !== null && !Array.isArray(u)) payload = u as Record<string, unknown>;
      } catch {
        // kept verbatim: a transcript may hold a malformed event on purpose
      }
    }
    events.push({ raw: wholeMessageText(sse, m), data: m.data, payload });
  }
  const chat = events.some((e) => e.payload?.['object'] === 'chat.completion.chunk' || e.data === '[DONE]');
  let responseId: string | undefined;
  for (const e of events) {
    const r = e.payload?.['response'];
    if (typeof r === 'object' && r !== null && typeof (r as { id?: unknown }).id === 'string') {
      responseId = (r as { id: string }).id;
      break;
    }
  }
  return { kind: chat ? 'chat' : 'responses', events, responseId };
}

/** The sequence number of a transcript event, if it has one. */
export function sequenceOf(e: TranscriptEvent): number | undefined {
  const n = e.payload?.['sequence_number'];
  return typeof n === 'number' ? n : undefined;
}

/** The final Response object of a Responses transcript: that of its last lifecycle event. */
export function finalResponseOf(t: ParsedTranscript): Record<string, unknown> | undefined {
  for (let i = t.events.length - 1; i >= 0; i--) {
    const r = t.events[i]?.payload?.['response'];
    if (typeof r === 'object' && r !== null) return r as Record<string, unknown>;
  }
  return undefined;
}

/**
 * One event of a transcript written inline: any object with a `type` (a typed `ResponseStreamEvent`, or an
 * object literal with whatever fields the test needs, unknown event types included).
 */
export interface TranscriptEventInput {
  readonly type: string;
  readonly [field: string]: unknown;
}

/**
 * Payloads as Responses SSE text (`event:` line equal to `type`, then `data:`), in the order given and as
 * given (a `sequence_number` is not added). Accepts inline object literals:
 *
 * ```ts
 * responsesTranscript([
 *   { type: 'response.created', sequence_number: 0, response: { id: 'resp_1', status: 'in_progress', output: [] } },
 *   { type: 'response.completed', sequence_number: 1, response: { id: 'resp_1', status: 'completed', output: [] } },
 * ]);
 * ```
 */
export function responsesTranscript(events: ReadonlyArray<TranscriptEventInput | { readonly type: string }>): string {
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

/** Chunks as Chat Completions SSE text, ending with `data: [DONE]`. */
export function chatTranscript(chunks: readonly object[]): string {
  return `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
}

export interface TextTranscriptOptions {
  /** Default `resp_text`. */
  readonly responseId?: string;
  readonly model?: string;
  /** The text deltas, in order. */
  readonly deltas: readonly string[];
  /** Adds `response.queued` after `response.created`, as a background response does. */
  readonly background?: boolean;
}

/**
 * A complete Responses transcript of one assistant message made of the given deltas, numbered from 0
 * by 1: created, (queued), in_progress, item and part added, the deltas, the `.done` events, completed.
 */
export function textTranscript(options: TextTranscriptOptions): string {
  const id = options.responseId ?? 'resp_text';
  const model = options.model ?? 'gpt-5.4-nano';
  const itemId = `msg_${id.replace(/^resp_/, '')}`;
  const text = options.deltas.join('');
  const response = (status: string, output: unknown[], usage: unknown = null) => ({
    id, object: 'response', created_at: 1758200000, status, model, output, usage, error: null,
    incomplete_details: null, previous_response_id: null, background: options.background ?? false,
  });
  const part = (t: string) => ({ type: 'output_text', annotations: [], logprobs: [], text: t });
  const message = (status: string, content: unknown[]) => ({ id: itemId, type: 'message', status, content, role: 'assistant' });
  const events: Array<Record<string, unknown> & { type: string }> = [];
  const push = (e: Record<string, unknown> & { type: string }) => events.push({ ...e, sequence_number: events.length });
  push({ type: 'response.created', response: response(options.background ? 'queued' : 'in_progress', []) });
  if (options.background) push({ type: 'response.queued', response: response('queued', []) });
  push({ type: 'response.in_progress', response: response('in_progress', []) });
  push({ type: 'response.output_item.added', output_index: 0, item: message('in_progress', []) });
  push({ type: 'response.content_part.added', item_id: itemId, output_index: 0, content_index: 0, part: part('') });
  for (const d of options.deltas) {
    push({ type: 'response.output_text.delta', item_id: itemId, output_index: 0, content_index: 0, delta: d, logprobs: [] });
  }
  push({ type: 'response.output_text.done', item_id: itemId, output_index: 0, content_index: 0, text, logprobs: [] });
  push({ type: 'response.content_part.done', item_id: itemId, output_index: 0, content_index: 0, part: part(text) });
  const done = message('completed', [part(text)]);
  push({ type: 'response.output_item.done', output_index: 0, item: done });
  const tokens = options.deltas.length;
  push({
    type: 'response.completed',
    response: response('completed', [done], {
      input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: tokens,
      output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 10 + tokens,
    }),
  });
  return responsesTranscript(events);
}
