// The provider dialect recordings (test/fixtures/dialects) and what the bridge should make of each,
// written out by hand from the recordings, independently of the operator.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import type { ChatCompletionChunk } from '../../lib/events/chat.js';
import type { ResponseStreamEvent } from '../../lib/events/responses.js';
import { fromChatCompletionsSSE } from '../../lib/decode/chat-sse.js';
import { fromChatChunks } from '../../operators/fromChatChunks.js';

export const DIALECTS_DIR = join(__dirname, '..', 'fixtures', 'dialects');
export const dialectFiles = (): string[] => readdirSync(DIALECTS_DIR).filter((f) => f.endsWith('.sse')).sort();
export const dialect = (name: string): string => readFileSync(join(DIALECTS_DIR, name.endsWith('.sse') ? name : `${name}.sse`), 'utf8');

type Json = Record<string, unknown>;

/** The parts of a final Response a chat client cares about, flattened for comparison. */
export interface Summary {
  id: string;
  model: string;
  created: number;
  status: string;
  text: string;
  reasoning: string;
  summary: string;
  encrypted: string | null;
  calls: Array<{ type: string; call_id: string; name: string; input: string }>;
  annotations: Array<{ url: string; title: string; cited: string }>;
  usage: { input: number; output: number; total: number; cached: number; reasoning: number } | null;
  audio: { transcript: string; data: string; id: unknown } | null;
  logprobs: string[];
}

export function summarize(response: Json): Summary {
  const s: Summary = {
    id: response['id'] as string, model: response['model'] as string, created: response['created_at'] as number, status: response['status'] as string,
    text: '', reasoning: '', summary: '', encrypted: null, calls: [], annotations: [], usage: null, audio: null, logprobs: [],
  };
  for (const item of response['output'] as Json[]) {
    if (item['type'] === 'message') {
      for (const p of item['content'] as Json[]) {
        if (p['type'] === 'output_text') {
          const text = p['text'] as string;
          for (const a of p['annotations'] as Json[]) {
            s.annotations.push({ url: a['url'] as string, title: a['title'] as string, cited: text.slice(a['start_index'] as number, a['end_index'] as number) });
          }
          for (const l of p['logprobs'] as Json[]) s.logprobs.push(l['token'] as string);
          s.text += text;
        } else if (p['type'] === 'output_audio') {
          s.audio = { transcript: p['transcript'] as string, data: p['data'] as string, id: p['id'] };
        }
      }
    } else if (item['type'] === 'reasoning') {
      for (const p of (item['content'] as Json[] | undefined) ?? []) s.reasoning += p['text'] as string;
      for (const p of item['summary'] as Json[]) s.summary += p['text'] as string;
      if (typeof item['encrypted_content'] === 'string') s.encrypted = item['encrypted_content'];
    } else if (item['type'] === 'function_call' || item['type'] === 'custom_tool_call') {
      const input = (item['type'] === 'function_call' ? item['arguments'] : item['input']) as string;
      s.calls.push({ type: item['type'], call_id: item['call_id'] as string, name: item['name'] as string, input });
    }
  }
  const u = response['usage'] as Json | null;
  if (u) {
    s.usage = {
      input: u['input_tokens'] as number, output: u['output_tokens'] as number, total: u['total_tokens'] as number,
      cached: (u['input_tokens_details'] as Json)['cached_tokens'] as number, reasoning: (u['output_tokens_details'] as Json)['reasoning_tokens'] as number,
    };
  }
  return s;
}

const base = { status: 'completed', reasoning: '', summary: '', encrypted: null, calls: [], annotations: [], audio: null, logprobs: [], text: '' };
const usage = (input: number, output: number, total: number, cached = 0, reasoning = 0) => ({ input, output, total, cached, reasoning });
const fn = (call_id: string, name: string, input: string) => ({ type: 'function_call', call_id, name, input });

/** What each recording bridges to. */
export const EXPECTED: Record<string, Summary> = {
  'azure.sse': {
    ...base, id: 'chatcmpl-CHaZ7rT1kQ9mV2pL4wR8sN1bY6zA0', model: 'gpt-4o-2024-11-20', created: 1758301234,
    text: 'Hello! How can I help you today?', usage: usage(12, 10, 22),
  },
  'zai.sse': {
    ...base, id: '20250918153012a1b2c3d4e5f64a7b9c', model: 'glm-4.5', created: 1758180612,
    reasoning: '\nThe user wants the weather in Beijing.', text: '\nLet me check the weather.',
    calls: [fn('call_-8230412356721459', 'get_weather', '{"city": "Beijing"}')], usage: usage(180, 42, 222, 43),
  },
  'moonshot.sse': {
    ...base, id: 'chatcmpl-68cbd2f1a0b3c4d5e6f7a8b9', model: 'kimi-k2-0905-preview', created: 1758183153,
    text: "Hello! I'm Kimi, an AI assistant.", usage: usage(19, 13, 32, 8),
  },
  'hf-router.sse': {
    ...base, id: '', model: 'meta-llama/Llama-3.1-8B-Instruct', created: 1758185000, text: 'Paris is the capital of France.', usage: usage(41, 8, 49),
  },
  'perplexity.sse': {
    ...base, id: '3f1c2b7e-5d4a-4c1e-9b8f-0a6d2e7c4b91', model: 'sonar', created: 1758190000,
    text: 'Oslo is the capital of Norway[1]. It is known for its museums and the fjord[2].',
    annotations: [
      { url: 'https://en.wikipedia.org/wiki/Oslo', title: 'Oslo - Wikipedia', cited: '[1]' },
      { url: 'https://www.visitoslo.com/en/', title: 'Visit Oslo | Official travel guide', cited: '[2]' },
    ],
    usage: usage(9, 6, 15),
  },
  'gemini.sse': {
    ...base, id: '', model: 'gemini-2.5-flash', created: 1758200000, text: "I'll check both cities.",
    calls: [fn('function-call-11734982374', 'get_weather', '{"city":"Paris"}'), fn('function-call-11734982375', 'get_weather', '{"city":"Tokyo"}')],
    usage: usage(50, 30, 80),
  },
  'ollama.sse': {
    ...base, id: 'chatcmpl-611', model: 'qwen3:8b', created: 1758210000, reasoning: 'Okay, the user wants the time in Oslo.',
    calls: [fn('call_ab12cd34', 'get_time', '{"city":"Oslo"}')], usage: usage(141, 62, 203),
  },
  'mistral.sse': {
    ...base, id: 'a1b6f2c9e3d84e0f9b7c5d2a8e6f4b13', model: 'mistral-large-latest', created: 1758220000,
    calls: [fn('D681PevKs', 'get_weather', '{"city": "Paris"}'), fn('nT4xq9LbW', 'get_time', '{"tz": "Europe/Paris"}')], usage: usage(92, 39, 131),
  },
  'deepseek.sse': {
    ...base, id: '0f6c2d8e-4b1a-4f3e-9c7d-2a5b8e1f6d30', model: 'deepseek-reasoner', created: 1758230000,
    reasoning: 'We need 9.11 vs 9.9: 9.9 is larger.', text: '9.9 is larger.', usage: usage(18, 24, 42, 16, 16),
  },
  'groq.sse': {
    ...base, id: 'chatcmpl-5b1e9c3a-7d2f-4a8b-b6e0-3c9f1d4a2e7b', model: 'openai/gpt-oss-20b', created: 1758240000,
    reasoning: 'User says hi. Reply briefly.', text: 'Hi there!', usage: usage(75, 21, 96),
  },
  'xai.sse': {
    ...base, id: '8d2f6b1c-3a4e-4f7b-9c0d-5e1a2b3c4d5e', model: 'grok-3-mini', created: 1758250000,
    reasoning: 'First, the latest release.', text: 'The latest release is 2.0[1].',
    annotations: [{ url: 'https://x.ai/news/grok-2', title: '', cited: '[1]' }], usage: usage(12, 9, 61, 4, 40),
  },
  'openrouter.sse': {
    ...base, id: 'gen-1758260000-AbCdEfGhIjKlMnOpQrSt', model: 'anthropic/claude-sonnet-4', created: 1758260000,
    reasoning: 'Simple greeting; answer warmly.', encrypted: 'EqQBCkgIBxABGAIiQL3', text: 'Hello! Nice to meet you.', usage: usage(14, 30, 44, 0, 18),
  },
  'llamacpp.sse': {
    ...base, id: 'chatcmpl-Qx3kV8bN2mT5rY7wZ1aC4dE6fG9hJ0kL', model: 'gpt-oss-20b', created: 1758270000,
    reasoning: 'Count r letters: 3.', text: 'There are 3.', usage: usage(80, 14, 94),
  },
  'cerebras.sse': {
    ...base, id: 'chatcmpl-7e4a2c9b-1f3d-4b6e-8a0c-5d9e2f1b3a7c', model: 'llama-3.3-70b', created: 1758280000, text: 'Fast inference is fun.', usage: usage(40, 5, 45),
  },
  'audio.sse': {
    ...base, id: 'chatcmpl-CJaUd10x7kPqR2sT4uV6wX8yZ0aB', model: 'gpt-4o-audio-preview-2025-06-03', created: 1758290000,
    audio: { transcript: 'Hello there!', data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEA', id: 'audio_68cc1f2a3b4c8191a0b1c2d3e4f5a6b7' }, usage: usage(17, 45, 62),
  },
  'custom-tool.sse': {
    ...base, id: 'chatcmpl-CKcT9mQ2rV5nX8bL1pZ4wE7yU0iO', model: 'gpt-5-2025-08-07', created: 1758295000,
    calls: [{ type: 'custom_tool_call', call_id: 'call_Vx7pQ2mN5bR8', name: 'code_exec', input: 'print("hello world")' }], usage: usage(85, 210, 295, 0, 192),
  },
  'content-parts.sse': {
    ...base, id: 'f3a9c1e7b5d24086a8c6e4b2d0f19375', model: 'magistral-medium-2509', created: 1758296000,
    reasoning: 'Okay, 2+2 is 4.', text: 'The answer is **4**.', usage: usage(10, 30, 40),
  },
  'logprobs.sse': {
    ...base, id: 'chatcmpl-CLp8Kq3xV1nM6bT9wR2sY5uI7oP0', model: 'gpt-4.1-mini-2025-04-14', created: 1758297000,
    text: 'Yes, é', logprobs: ['Yes', ',', ' é'], usage: null,
  },
};

export const chunksOf = (sse: string): Promise<ChatCompletionChunk[]> => lastValueFrom(fromChatCompletionsSSE(sse).pipe(toArray()));
export const bridged = (sse: string): Promise<ResponseStreamEvent[]> => lastValueFrom(fromChatCompletionsSSE(sse).pipe(fromChatChunks(), toArray()));
