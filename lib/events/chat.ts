import * as t from 'io-ts';
import { JsonObject, struct, nullable, optional } from './codec.js';

// `chat.completion.chunk`, the unit of a Chat Completions stream.

export const ChatCompletionChunkToolCall = struct(
  {
    index: t.number,
    id: optional(nullable(t.string)),
    type: optional(nullable(t.string)),
    function: optional(nullable(struct({ name: optional(nullable(t.string)), arguments: optional(nullable(t.string)) }, 'function'))),
  },
  'tool_call',
);
export type ChatCompletionChunkToolCall = t.TypeOf<typeof ChatCompletionChunkToolCall>;

export const ChatCompletionChunkDelta = struct(
  {
    role: optional(nullable(t.string)),
    content: optional(nullable(t.string)),
    refusal: optional(nullable(t.string)),
    tool_calls: optional(nullable(t.array(ChatCompletionChunkToolCall))),
    function_call: optional(nullable(struct({ name: optional(t.string), arguments: optional(t.string) }, 'function_call'))),
    audio: optional(nullable(JsonObject)),
  },
  'delta',
);
export type ChatCompletionChunkDelta = t.TypeOf<typeof ChatCompletionChunkDelta> & {
  /** Reasoning text as some providers stream it (`reasoning_content` or `reasoning`). */
  readonly reasoning_content?: string | null;
  readonly reasoning?: string | null;
  readonly annotations?: ReadonlyArray<Record<string, unknown>>;
};

export const ChatCompletionChunkChoice = struct(
  {
    index: t.number,
    // Some providers send a final choice with no `delta`: accepted.
    delta: optional(ChatCompletionChunkDelta),
    finish_reason: optional(nullable(t.string)),
    logprobs: optional(nullable(JsonObject)),
  },
  'choice',
);
export type ChatCompletionChunkChoice = Omit<t.TypeOf<typeof ChatCompletionChunkChoice>, 'delta'> & { delta?: ChatCompletionChunkDelta };

export const CompletionUsage = struct(
  {
    prompt_tokens: t.number,
    completion_tokens: t.number,
    total_tokens: t.number,
    prompt_tokens_details: optional(nullable(struct({ cached_tokens: optional(t.number) }, 'prompt_tokens_details'))),
    completion_tokens_details: optional(nullable(struct({ reasoning_tokens: optional(t.number) }, 'completion_tokens_details'))),
  },
  'usage',
);
export type CompletionUsage = t.TypeOf<typeof CompletionUsage>;

export const ChatCompletionChunk = struct(
  {
    id: t.string,
    object: t.literal('chat.completion.chunk'),
    created: t.number,
    model: t.string,
    choices: t.array(ChatCompletionChunkChoice),
    usage: optional(nullable(CompletionUsage)),
    system_fingerprint: optional(nullable(t.string)),
    service_tier: optional(nullable(t.string)),
  },
  'chat.completion.chunk',
);
export type ChatCompletionChunk = Omit<t.TypeOf<typeof ChatCompletionChunk>, 'choices'> & { choices: ChatCompletionChunkChoice[] };
