import * as t from 'io-ts';
import { JsonObject, struct, nullable, optional, taggedUnion, tableOf } from './codec.js';

// `chat.completion.chunk`, the unit of a Chat Completions stream.
//
// The codec checks the fields the library reads, with the types it reads them as, and nothing a real
// provider leaves out: chunk metadata (`id`, `object`, `created`, `model`) and `choices` may be absent
// (Gemini sends no `id`, Z.ai / Moonshot / the HF router no `object`, audio streams end with a chunk
// without `choices`, Azure opens with `object: ""`), a tool call may have no `index` (Mistral, Gemini,
// Ollama), `content` may be a list of typed parts (Mistral reasoning models). Unknown keys are kept.

/** Absent, `null` or a `T`: what optional fields look like across providers. */
const opt = <C extends t.Mixed>(codec: C) => optional(nullable(codec));

/** A string, or a list of `items`; a failure names the field or the list element (a union would name its member). */
function stringOrList<C extends t.Mixed>(items: C, name: string): t.Type<string | Array<t.TypeOf<C>>, string | Array<t.TypeOf<C>>, unknown> {
  const list = t.array(items);
  return new t.Type<string | Array<t.TypeOf<C>>, string | Array<t.TypeOf<C>>, unknown>(
    name,
    (u): u is string | Array<t.TypeOf<C>> => typeof u === 'string' || list.is(u),
    (u, c) => (typeof u === 'string' ? t.success(u) : Array.isArray(u) ? list.validate(u, c) : t.failure(u, c, `expected ${name}`)),
    t.identity,
  );
}

export const ChatCompletionChunkToolCall = struct(
  {
    /** Absent when the provider sends each call whole (Mistral, Gemini, Ollama): placed by position and id. */
    index: optional(t.number),
    id: opt(t.string),
    type: opt(t.string),
    function: opt(struct({ name: opt(t.string), arguments: opt(t.string) }, 'function')),
    /** A custom (free-form input) tool call: `type: 'custom'`. */
    custom: opt(struct({ name: opt(t.string), input: opt(t.string) }, 'custom')),
  },
  'tool_call',
);
/**
 * A tool call fragment in `delta.tool_calls`.
 * @interface
 */
export type ChatCompletionChunkToolCall = t.TypeOf<typeof ChatCompletionChunkToolCall>;

/** A text part of a `content` list. */
export const ChatContentTextPart = struct({ type: t.literal('text'), text: t.string }, 'text');
/** A reasoning part of a `content` list (Mistral): `thinking` is text, or a list of text parts. */
export const ChatContentThinkingPart = struct(
  { type: t.literal('thinking'), thinking: stringOrList(struct({ type: t.string, text: opt(t.string) }, 'thinking_part'), 'string | thinking_part[]') },
  'thinking',
);
/** A part of a type the library does not read (an image, a future type) passes with its `type`. */
export interface ChatContentOtherPart { readonly type: string; readonly [key: string]: unknown }
/**
 * `text`: a text part of a `content` list.
 * @interface
 */
export type ChatContentTextPart = t.TypeOf<typeof ChatContentTextPart>;
/**
 * `thinking`: a reasoning part of a `content` list (Mistral).
 * @interface
 */
export type ChatContentThinkingPart = t.TypeOf<typeof ChatContentThinkingPart>;
/** A part of a chunk's `content` list. */
export type ChatContentPart = ChatContentTextPart | ChatContentThinkingPart | ChatContentOtherPart;
export const ChatContentPart = taggedUnion<ChatContentPart>('content_part', tableOf({ text: ChatContentTextPart, thinking: ChatContentThinkingPart }), true);

/** `content`: a string, or a list of typed parts. */
const Content = stringOrList(ChatContentPart, 'string | content_part[]');

/** OpenRouter's `reasoning_details` entries; other types pass. */
export const ChatReasoningDetail = taggedUnion<{ type: string; [key: string]: unknown }>(
  'reasoning_detail',
  tableOf({
    'reasoning.text': struct({ type: t.literal('reasoning.text'), text: opt(t.string) }, 'reasoning.text'),
    'reasoning.summary': struct({ type: t.literal('reasoning.summary'), summary: opt(t.string) }, 'reasoning.summary'),
    'reasoning.encrypted': struct({ type: t.literal('reasoning.encrypted'), data: opt(t.string) }, 'reasoning.encrypted'),
  }),
  true,
);

export const ChatCompletionChunkAudio = struct(
  { id: opt(t.string), data: opt(t.string), transcript: opt(t.string), expires_at: opt(t.number) },
  'audio',
);
/**
 * Audio output in a chunk's `delta.audio`.
 * @interface
 */
export type ChatCompletionChunkAudio = t.TypeOf<typeof ChatCompletionChunkAudio>;

export const ChatCompletionChunkDelta = struct(
  {
    role: opt(t.string),
    content: opt(Content),
    refusal: opt(t.string),
    /** Reasoning text as providers stream it: `reasoning_content` (DeepSeek, xAI, Z.ai, llama.cpp) or `reasoning` (Groq, OpenRouter, Ollama). */
    reasoning_content: opt(t.string),
    reasoning: opt(t.string),
    reasoning_details: opt(t.array(ChatReasoningDetail)),
    annotations: opt(t.array(struct({ type: t.string }, 'annotation'))),
    tool_calls: opt(t.array(ChatCompletionChunkToolCall)),
    function_call: opt(struct({ name: opt(t.string), arguments: opt(t.string) }, 'function_call')),
    audio: opt(ChatCompletionChunkAudio),
  },
  'delta',
);
/**
 * What a chunk adds to a choice: content, reasoning, refusal, tool calls, audio.
 * @interface
 */
export type ChatCompletionChunkDelta = t.TypeOf<typeof ChatCompletionChunkDelta>;

export const ChatTokenLogprob = struct(
  {
    token: t.string,
    logprob: t.number,
    bytes: opt(t.array(t.number)),
    top_logprobs: opt(t.array(struct({ token: t.string, logprob: t.number, bytes: opt(t.array(t.number)) }, 'top_logprob'))),
  },
  'logprob',
);
/**
 * The log probability of one token.
 * @interface
 */
export type ChatTokenLogprob = t.TypeOf<typeof ChatTokenLogprob>;

export const CompletionUsage = struct(
  {
    prompt_tokens: t.number,
    completion_tokens: t.number,
    total_tokens: t.number,
    prompt_tokens_details: opt(struct({ cached_tokens: opt(t.number) }, 'prompt_tokens_details')),
    completion_tokens_details: opt(struct({ reasoning_tokens: opt(t.number) }, 'completion_tokens_details')),
  },
  'usage',
);
/**
 * Token counts of a chat completion.
 * @interface
 */
export type CompletionUsage = t.TypeOf<typeof CompletionUsage>;

export const ChatCompletionChunkChoice = struct(
  {
    index: t.number,
    // Azure's content-filter chunks and some final chunks have no `delta`.
    delta: opt(ChatCompletionChunkDelta),
    finish_reason: opt(t.string),
    logprobs: opt(struct({ content: opt(t.array(ChatTokenLogprob)), refusal: opt(t.array(JsonObject)) }, 'logprobs')),
    /** Moonshot sends the usage on the last choice instead of the chunk. */
    usage: opt(CompletionUsage),
  },
  'choice',
);
/**
 * One choice of a chunk.
 * @interface
 */
export type ChatCompletionChunkChoice = t.TypeOf<typeof ChatCompletionChunkChoice>;

export const ChatCompletionChunk = struct(
  {
    // `id` is absent or a string (never null): the decoder keeps the last one for StreamInterruptedError.
    id: optional(t.string),
    object: opt(t.string),
    created: opt(t.number),
    model: opt(t.string),
    choices: opt(t.array(ChatCompletionChunkChoice)),
    usage: opt(CompletionUsage),
    system_fingerprint: opt(t.string),
    service_tier: opt(t.string),
    /** Perplexity (and xAI live search): the cited URLs, repeated on every chunk. */
    citations: opt(t.array(t.string)),
    /** Perplexity: the sources behind `citations`, with their titles. */
    search_results: opt(t.array(struct({ url: t.string, title: opt(t.string) }, 'search_result'))),
    /** Groq: request metadata; its `usage` stands in when the chunk has none. */
    x_groq: opt(struct({ usage: opt(CompletionUsage) }, 'x_groq')),
  },
  'chat.completion.chunk',
);
/**
 * A decoded chunk. `choices` is always an array: the decoders give a chunk that has none (audio streams'
 * usage chunk) `choices: []`, so `chunk.choices[0]` reads as with the official SDK's types.
 * @interface
 */
export type ChatCompletionChunk = Omit<t.TypeOf<typeof ChatCompletionChunk>, 'choices'> & { choices: ChatCompletionChunkChoice[] };
