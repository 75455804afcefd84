import type { CompletionUsage } from '../../lib/events/chat.js';
import { chunkError, elementOf, isRecord, own, type Rec } from './chat-fields.js';
import type { ChatOutput, Json } from './chat-output.js';
import type { ToolCalls } from './chat-tool-calls.js';

// What fromChatChunks reads from a chunk, one reader per field and the dialects it comes in. Every
// reader checks the type of what it reads (the chunk may come from `validate: 'off'`): a field of the
// wrong type is a DecodeError naming chunk `n` and the field's path; `null` counts as absent.

const optString = (v: unknown): v is string | null | undefined => v === undefined || v === null || typeof v === 'string';
const absent = (v: unknown): v is null | undefined => v === undefined || v === null;

function str(o: Rec, key: string, n: number, path: string): string | undefined {
  const v = own(o, key);
  if (!optString(v)) throw chunkError(n, `${path}.${key}`, 'not a string');
  return v ?? undefined;
}

function list(v: unknown, n: number, path: string): readonly unknown[] | undefined {
  if (absent(v)) return undefined;
  if (!Array.isArray(v)) throw chunkError(n, path, 'not an array');
  return v;
}

function record(v: unknown, n: number, path: string): Rec | undefined {
  if (absent(v)) return undefined;
  if (!isRecord(v)) throw chunkError(n, path, 'not an object');
  return v;
}

/**
 * Token usage, wherever the provider puts it: `usage` on the chunk (OpenAI: on a last chunk with
 * `choices: []` or none; Mistral, xAI, Cerebras, llama.cpp: on the chunk with the finish), on the choice
 * (Moonshot), or in `x_groq.usage` (Groq). DeepSeek's `prompt_cache_hit_tokens` and Moonshot's top-level
 * `cached_tokens` stand for `prompt_tokens_details.cached_tokens`.
 */
export function usageOf(v: unknown, n: number, path: string): CompletionUsage | undefined {
  const u = record(v, n, path);
  if (u === undefined) return undefined;
  const count = (key: string): number => {
    const x = own(u, key);
    if (typeof x !== 'number') throw chunkError(n, `${path}.${key}`, 'not a number');
    return x;
  };
  const detail = (key: string, field: string, fallback?: unknown): number => {
    const d = record(own(u, key), n, `${path}.${key}`);
    const x = (d === undefined ? undefined : own(d, field)) ?? fallback;
    if (absent(x)) return 0;
    if (typeof x !== 'number') throw chunkError(n, `${path}.${key}.${field}`, 'not a number');
    return x;
  };
  return {
    prompt_tokens: count('prompt_tokens'), completion_tokens: count('completion_tokens'), total_tokens: count('total_tokens'),
    prompt_tokens_details: { cached_tokens: detail('prompt_tokens_details', 'cached_tokens', own(u, 'prompt_cache_hit_tokens') ?? own(u, 'cached_tokens')) },
    completion_tokens_details: { reasoning_tokens: detail('completion_tokens_details', 'reasoning_tokens') },
  };
}

/** The chunk-level usage: `usage`, else Groq's `x_groq.usage`. */
export function chunkUsage(chunk: Rec, n: number): CompletionUsage | undefined {
  const u = usageOf(own(chunk, 'usage'), n, 'usage');
  if (u !== undefined) return u;
  const groq = record(own(chunk, 'x_groq'), n, 'x_groq');
  return groq === undefined ? undefined : usageOf(own(groq, 'usage'), n, 'x_groq.usage');
}

/**
 * Cited sources listed on the chunk: `citations` (URLs: Perplexity, xAI) and `search_results`
 * (`{ url, title }`: Perplexity), resent on every chunk. They become `url_citation` annotations.
 */
export function citations(chunk: Rec, n: number, out: ChatOutput): void {
  const urls = list(own(chunk, 'citations'), n, 'citations');
  const results = list(own(chunk, 'search_results'), n, 'search_results');
  if (urls === undefined && results === undefined) return;
  const titles = new Map<string, string>();
  const sources: string[] = [];
  if (urls !== undefined) {
    for (let i = 0; i < urls.length; i++) {
      const u = elementOf(urls, i);
      if (typeof u !== 'string') throw chunkError(n, `citations[${i}]`, 'not a string');
      sources.push(u);
    }
  }
  if (results !== undefined) {
    for (let i = 0; i < results.length; i++) {
      const r = record(elementOf(results, i), n, `search_results[${i}]`);
      if (r === undefined) continue;
      const url = own(r, 'url');
      if (typeof url !== 'string') throw chunkError(n, `search_results[${i}].url`, 'not a string');
      const title = str(r, 'title', n, `search_results[${i}]`);
      if (title) titles.set(url, title);
      if (urls === undefined) sources.push(url);
    }
  }
  for (const url of sources) out.message.cite(url, titles.get(url));
}

/** A choice's token logprobs (`logprobs.content`), in the shape of Responses text logprobs. */
export function logprobsOf(choice: Rec, n: number, path: string): Json[] {
  const lp = record(own(choice, 'logprobs'), n, `${path}.logprobs`);
  const content = lp === undefined ? undefined : list(own(lp, 'content'), n, `${path}.logprobs.content`);
  if (content === undefined) return [];
  const token = (v: unknown, at: string): Json => {
    const t = record(v, n, at) ?? {};
    const tk = own(t, 'token');
    const logprob = own(t, 'logprob');
    if (typeof tk !== 'string') throw chunkError(n, `${at}.token`, 'not a string');
    if (typeof logprob !== 'number') throw chunkError(n, `${at}.logprob`, 'not a number');
    const bytes = list(own(t, 'bytes'), n, `${at}.bytes`) ?? [];
    // Copied: the list goes on in the events, and a hole in it would read Array.prototype there.
    const copy = new Array<unknown>(bytes.length);
    for (let i = 0; i < bytes.length; i++) copy[i] = elementOf(bytes, i);
    return { token: tk, logprob, bytes: copy };
  };
  const out: Json[] = [];
  for (let i = 0; i < content.length; i++) {
    const at = `${path}.logprobs.content[${i}]`;
    const c = elementOf(content, i);
    const tok = token(c, at);
    const top = list(isRecord(c) ? own(c, 'top_logprobs') : undefined, n, `${at}.top_logprobs`) ?? [];
    const tops: Json[] = [];
    for (let j = 0; j < top.length; j++) tops.push(token(elementOf(top, j), `${at}.top_logprobs[${j}]`));
    tok['top_logprobs'] = tops;
    out.push(tok);
  }
  return out;
}

/**
 * One delta, in reading order: reasoning, content, refusal, audio, annotations, then function / tool calls.
 * `logprobs` go with the first text of the delta.
 */
export function delta(d: Rec, n: number, path: string, out: ChatOutput, calls: ToolCalls, logprobs: Json[]): void {
  reasoning(d, n, path, out);
  const usedLogprobs = content(own(d, 'content'), n, `${path}.content`, out, logprobs);
  if (!usedLogprobs && logprobs.length > 0) out.message.logprobs(logprobs);
  const refusal = str(d, 'refusal', n, path);
  if (refusal) out.message.refusal(refusal);
  audio(own(d, 'audio'), n, `${path}.audio`, out);
  annotations(own(d, 'annotations'), n, `${path}.annotations`, out);
  calls.legacy(own(d, 'function_call'), n, `${path}.function_call`);
  calls.list(own(d, 'tool_calls'), n, `${path}.tool_calls`);
}

/**
 * Reasoning as `reasoning_content` (DeepSeek, xAI, Z.ai, llama.cpp) or `reasoning` (Groq, OpenRouter,
 * Ollama): one of the two, as vLLM sends both with the same text. OpenRouter's `reasoning_details` repeat
 * the text of `reasoning`, so beside a string they add only encrypted reasoning; alone, their text is
 * reasoning text and their summaries a reasoning summary.
 */
function reasoning(d: Rec, n: number, path: string, out: ChatOutput): void {
  const rc = str(d, 'reasoning_content', n, path);
  const r = rc ?? str(d, 'reasoning', n, path);
  if (r) out.reasoning.text(r);
  const details = list(own(d, 'reasoning_details'), n, `${path}.reasoning_details`);
  if (details === undefined) return;
  for (let i = 0; i < details.length; i++) {
    const at = `${path}.reasoning_details[${i}]`;
    const x = record(elementOf(details, i), n, at);
    if (x === undefined) continue;
    const type = own(x, 'type');
    if (typeof type !== 'string') throw chunkError(n, `${at}.type`, 'not a string');
    if (type === 'reasoning.encrypted') {
      const data = str(x, 'data', n, at);
      if (data) out.reasoning.encrypted(data);
    } else if (type === 'reasoning.text') {
      const text = str(x, 'text', n, at);
      if (text && r === undefined) out.reasoning.text(text);
    } else if (type === 'reasoning.summary') {
      const summary = str(x, 'summary', n, at);
      if (summary && r === undefined) out.reasoning.summary(summary);
    }
  }
}

/**
 * `content`: a string, or a list of typed parts (Mistral): `text` parts are text, `thinking` parts
 * (`thinking` as a string or a list of text parts) reasoning, other types (images, future ones) skipped.
 * Returns whether a text delta carried the logprobs.
 */
function content(v: unknown, n: number, path: string, out: ChatOutput, logprobs: Json[]): boolean {
  if (absent(v)) return false;
  if (typeof v === 'string') {
    if (v === '') return false;
    out.message.text(v, logprobs);
    return true;
  }
  if (!Array.isArray(v)) throw chunkError(n, path, 'not a string or a list of parts');
  let used = false;
  for (let i = 0; i < v.length; i++) {
    const at = `${path}[${i}]`;
    const p = record(elementOf(v, i), n, at);
    if (p === undefined) continue;
    const type = own(p, 'type');
    if (type === 'text') {
      const text = str(p, 'text', n, at);
      if (text) {
        out.message.text(text, used ? [] : logprobs);
        used = true;
      }
    } else if (type === 'thinking') {
      thinking(own(p, 'thinking'), n, `${at}.thinking`, out);
    } else if (typeof type !== 'string') {
      throw chunkError(n, `${at}.type`, 'not a string');
    }
  }
  return used;
}

function thinking(v: unknown, n: number, path: string, out: ChatOutput): void {
  if (absent(v)) return;
  if (typeof v === 'string') {
    if (v) out.reasoning.text(v);
    return;
  }
  if (!Array.isArray(v)) throw chunkError(n, path, 'not a string or a list of parts');
  for (let i = 0; i < v.length; i++) {
    const p = record(elementOf(v, i), n, `${path}[${i}]`);
    const text = p === undefined ? undefined : str(p, 'text', n, `${path}[${i}]`);
    if (text) out.reasoning.text(text);
  }
}

/** `delta.audio` (`{ id, data, transcript, expires_at }`), the audio output of audio models. */
function audio(v: unknown, n: number, path: string, out: ChatOutput): void {
  const a = record(v, n, path);
  if (a === undefined) return;
  const expires = own(a, 'expires_at');
  if (!absent(expires) && typeof expires !== 'number') throw chunkError(n, `${path}.expires_at`, 'not a number');
  const id = str(a, 'id', n, path);
  const data = str(a, 'data', n, path);
  const transcript = str(a, 'transcript', n, path);
  if (id === undefined && !data && !transcript && absent(expires)) return;
  out.message.audio({ id, data, transcript, expiresAt: absent(expires) ? undefined : expires });
}

/** `delta.annotations` (OpenAI search models, OpenRouter web search): url citations; other types have no Responses equivalent. */
function annotations(v: unknown, n: number, path: string, out: ChatOutput): void {
  const as = list(v, n, path);
  if (as === undefined) return;
  for (let i = 0; i < as.length; i++) {
    const a = elementOf(as, i);
    const cite = isRecord(a) && own(a, 'type') === 'url_citation' ? own(a, 'url_citation') : undefined;
    if (!isRecord(cite)) continue;
    const at = (k: string): number => {
      const v = own(cite, k);
      return typeof v === 'number' ? v : 0;
    };
    const text = (k: string): string => {
      const v = own(cite, k);
      return typeof v === 'string' ? v : '';
    };
    out.message.annotation({ type: 'url_citation', start_index: at('start_index'), end_index: at('end_index'), url: text('url'), title: text('title') });
  }
}
