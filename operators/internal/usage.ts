// A Responses `usage` as Chat Completions reports it (not exported from the package).
import type { CompletionUsage } from '../../lib/events/chat.js';
import { isRecord, num, type Rec } from './chat-fields.js';

/** `usage` of the terminal event `e` in chat terms; a count of the wrong type is a DecodeError naming its path. */
export function completionUsage(e: Rec, u: Rec): CompletionUsage {
  const details = (key: string, field: string): number => {
    const d = u[key];
    if (!isRecord(d) || d[field] === undefined || d[field] === null) return 0;
    return num(e, d, field, `response.usage.${key}.${field}`);
  };
  return {
    prompt_tokens: num(e, u, 'input_tokens', 'response.usage.input_tokens'),
    completion_tokens: num(e, u, 'output_tokens', 'response.usage.output_tokens'),
    total_tokens: num(e, u, 'total_tokens', 'response.usage.total_tokens'),
    prompt_tokens_details: { cached_tokens: details('input_tokens_details', 'cached_tokens') },
    completion_tokens_details: { reasoning_tokens: details('output_tokens_details', 'reasoning_tokens') },
  };
}
