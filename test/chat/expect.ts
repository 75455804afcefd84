// Independent expectations: what a chat client should end up with, read from the Responses terminal
// event or accumulated from chat chunks by hand.
import type { ChatCompletionChunk } from '../../lib/events/chat.js';

export interface ChatResult {
  content: string;
  refusal: string | null;
  reasoning: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finish: string | null;
  usage: Record<string, unknown> | null;
}

type Json = Record<string, unknown>;

/** What the chat side should see for a Responses transcript, from its terminal response only. */
export function expectedFromResponse(terminal: { type: string; response: Json }): Omit<ChatResult, 'reasoning'> {
  const r = terminal.response;
  const output = (r['output'] as Json[] | undefined) ?? [];
  let content = '';
  let refusal: string | null = null;
  const toolCalls: ChatResult['toolCalls'] = [];
  for (const item of output) {
    if (item['type'] === 'message') {
      for (const p of item['content'] as Json[]) {
        if (p['type'] === 'output_text') content += p['text'] as string;
        if (p['type'] === 'refusal') refusal = (refusal ?? '') + (p['refusal'] as string);
      }
    } else if (item['type'] === 'function_call') {
      toolCalls.push({ id: item['call_id'] as string, name: item['name'] as string, arguments: item['arguments'] as string });
    }
  }
  const reason = (r['incomplete_details'] as { reason?: string } | null | undefined)?.reason;
  const finish = terminal.type === 'response.incomplete' ? (reason === 'content_filter' ? 'content_filter' : 'length') : toolCalls.length > 0 ? 'tool_calls' : 'stop';
  const u = r['usage'] as Json | null | undefined;
  const usage = u
    ? {
        prompt_tokens: u['input_tokens'], completion_tokens: u['output_tokens'], total_tokens: u['total_tokens'],
        prompt_tokens_details: { cached_tokens: (u['input_tokens_details'] as Json | undefined)?.['cached_tokens'] ?? 0 },
        completion_tokens_details: { reasoning_tokens: (u['output_tokens_details'] as Json | undefined)?.['reasoning_tokens'] ?? 0 },
      }
    : null;
  return { content, refusal, toolCalls, finish, usage };
}

/** Merges chat chunks the way a client does (tool calls by index, name set once). */
export function accumulateChat(chunks: ReadonlyArray<ChatCompletionChunk>, reasoningField = 'reasoning_content'): ChatResult {
  const out: ChatResult = { content: '', refusal: null, reasoning: '', toolCalls: [], finish: null, usage: null };
  const byIndex: Array<{ id: string; name: string; arguments: string }> = [];
  for (const c of chunks) {
    if (c.usage) out.usage = c.usage as unknown as Json;
    for (const ch of c.choices ?? []) {
      const d = ch.delta as (Json & { tool_calls?: Array<{ index: number; id?: string | null; function?: { name?: string | null; arguments?: string | null } | null }> }) | undefined;
      if (d) {
        if (typeof d['content'] === 'string') out.content += d['content'];
        if (typeof d['refusal'] === 'string') out.refusal = (out.refusal ?? '') + d['refusal'];
        const r = d[reasoningField] ?? (reasoningField === 'reasoning_content' ? d['reasoning'] : undefined);
        if (typeof r === 'string') out.reasoning += r;
        for (const t of d.tool_calls ?? []) {
          const call = (byIndex[t.index] ??= { id: '', name: '', arguments: '' });
          if (t.id) call.id = t.id;
          if (t.function?.name && !call.name) call.name = t.function.name;
          if (t.function?.arguments) call.arguments += t.function.arguments;
        }
      }
      if (ch.finish_reason) out.finish = ch.finish_reason;
    }
  }
  out.toolCalls = byIndex.filter(Boolean);
  return out;
}
