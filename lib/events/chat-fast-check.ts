import { ChatCompletionChunk, ChatCompletionChunkChoice, ChatCompletionChunkDelta, ChatCompletionChunkToolCall, CompletionUsage } from './chat.js';

// The hand-written check of `chat.completion.chunk` (see fast-checks.ts for the Responses events): plain `typeof`
// tests on the fields of the shapes a stream is made of (content, reasoning and tool-call deltas, finish, usage),
// each rarer field (content parts, logprobs, audio, citations…) handed to its own codec. It answers exactly what
// `ChatCompletionChunk.is` answers (test/events/chat-fast-check.spec.ts compares them on generated chunks); a
// chunk it refuses goes through the codec's `validate`, which names the failing field.
//
// Why: the codec's generic `is` walks every declared field of every nested struct through a closure per codec
// (a dozen megamorphic sites); on a stream of one-word deltas that was a third of the strict decoder's time.

const P = ChatCompletionChunk.props;
const C = ChatCompletionChunkChoice.props;
const D = ChatCompletionChunkDelta.props;
const T = ChatCompletionChunkToolCall.props;
const U = CompletionUsage.props;

function isRecord(u: unknown): u is Record<string, unknown> {
  return typeof u === 'object' && u !== null && !Array.isArray(u);
}
/** `opt(t.string)`: absent, `null` or a string. */
function optStr(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'string';
}
function optNum(v: unknown): boolean {
  return v === undefined || v === null || typeof v === 'number';
}
/** `opt(codec)` for a field read rarely: absent and `null` here, anything else by the field's codec. */
function rare(v: unknown, codec: { is(u: unknown): boolean }): boolean {
  return v === undefined || v === null || codec.is(v);
}

function usageOk(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (!isRecord(v)) return false;
  return typeof v['prompt_tokens'] === 'number' && typeof v['completion_tokens'] === 'number' && typeof v['total_tokens'] === 'number' &&
    rare(v['prompt_tokens_details'], U.prompt_tokens_details) && rare(v['completion_tokens_details'], U.completion_tokens_details);
}

function toolCallsOk(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const c: unknown = v[i];
    if (!isRecord(c)) return false;
    const index = c['index'];
    if (!(index === undefined || typeof index === 'number') || !optStr(c['id']) || !optStr(c['type'])) return false;
    const f = c['function'];
    if (!(f === undefined || f === null || (isRecord(f) && optStr(f['name']) && optStr(f['arguments'])))) return false;
    if (!rare(c['custom'], T.custom)) return false;
  }
  return true;
}

function deltaOk(d: unknown): boolean {
  if (d === undefined || d === null) return true;
  if (!isRecord(d)) return false;
  const content = d['content'];
  return optStr(d['role']) && (content === undefined || content === null || typeof content === 'string' || D.content.is(content)) &&
    optStr(d['refusal']) && optStr(d['reasoning_content']) && optStr(d['reasoning']) &&
    rare(d['reasoning_details'], D.reasoning_details) && rare(d['annotations'], D.annotations) && toolCallsOk(d['tool_calls']) &&
    rare(d['function_call'], D.function_call) && rare(d['audio'], D.audio);
}

function choicesOk(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) {
    const c: unknown = v[i];
    if (!isRecord(c) || typeof c['index'] !== 'number' || !deltaOk(c['delta']) || !optStr(c['finish_reason']) ||
      !rare(c['logprobs'], C.logprobs) || !usageOk(c['usage'])) return false;
  }
  return true;
}

/** Exactly `ChatCompletionChunk.is(u)`, without the codec's generic walk on the common shapes. */
export function chatChunkOk(u: unknown): boolean {
  if (!isRecord(u)) return false;
  const id = u['id'];
  return (id === undefined || typeof id === 'string') && optStr(u['object']) && optNum(u['created']) && optStr(u['model']) &&
    choicesOk(u['choices']) && usageOk(u['usage']) && optStr(u['system_fingerprint']) && optStr(u['service_tier']) &&
    rare(u['citations'], P.citations) && rare(u['search_results'], P.search_results) && rare(u['x_groq'], P.x_groq);
}
