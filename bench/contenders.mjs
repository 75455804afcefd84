// The contenders: each takes a run context ({ fetch, baseURL }) and resolves to a normalised result
// that is checked against the workload's expectation before its time counts.
import { connect, merge } from 'rxjs';
import OpenAI from 'openai';
import { createOpenAI } from '@ai-sdk/openai';
import { chatAccumulator, eventsourceParserDecode, floorDecode, responsesAccumulator } from './baselines.mjs';

const distRoot = process.env.OPENAI_RX_DIST ? new URL(`file://${process.env.OPENAI_RX_DIST.replace(/\/?$/, '/')}`) : new URL('../dist/', import.meta.url);
/** The built package (ESM half). */
export const rx = await import(new URL('esm/index.js', distRoot).href).catch((e) => {
  throw new Error(`cannot load openai-rx from ${distRoot.pathname} (run npm run build): ${e.message}`);
});

const MODEL = 'gpt-5.4-nano';
const RESPONSES_BODY = { model: MODEL, input: 'bench' };
const CHAT_BODY = { model: MODEL, messages: [{ role: 'user', content: 'bench' }], stream_options: { include_usage: true } };
const PROMPT = [{ role: 'user', content: [{ type: 'text', text: 'bench' }] }];

async function post(ctx, path, body) {
  const res = await ctx.fetch(ctx.baseURL + path, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body: JSON.stringify({ ...body, stream: true }),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res.body;
}

/** Subscribe and resolve when the Observable completes. */
function drain(obs, next) {
  return new Promise((resolve, reject) => obs.subscribe({ next, error: reject, complete: resolve }));
}

function rxConfig(ctx, validate) {
  return { apiKey: 'bench', baseURL: ctx.baseURL, fetch: ctx.fetch, validate };
}

const needs = (...names) => {
  const missing = names.filter((n) => typeof rx[n] !== 'function');
  return missing.length ? `not available yet (${missing.join(', ')} missing from dist)` : undefined;
};

function textSnapshots(ctx, validate, events$ = rx.streamResponse(RESPONSES_BODY, rxConfig(ctx, validate))) {
  return events$.pipe(rx.accumulateText(TEXT_KINDS));
}
function fromSnapshot(r, s) {
  if (!s.done) return;
  if (s.kind === 'output_text') r.text = s.text;
  else if (s.kind === 'reasoning_summary_text') r.reasoning = s.text;
}
function fromToolCall(r, c) {
  if (c.type === 'function_call') r.calls.push({ name: c.name, callId: c.callId, arguments: c.arguments, parsed: c.parsed.ok ? c.parsed.value : c.parsed.error });
}

const TEXT_KINDS = { kind: ['output_text', 'reasoning_summary_text'] };

/** The full pipeline: the response's events through `compose()` (text snapshots and tool calls, merged). */
async function runPipeline(ctx, c, compose) {
  const r = { text: '', reasoning: '', calls: [] };
  await drain(rx.streamResponse(RESPONSES_BODY, rxConfig(ctx, c.validate)).pipe(compose()), (v) => ('kind' in v ? fromSnapshot(r, v) : fromToolCall(r, v)));
  return r;
}

const strictOff = (base) => [
  { ...base, name: `${base.name} (strict)`, validate: 'strict', group: 'openai-rx' },
  { ...base, name: `${base.name} (validate off)`, validate: 'off', group: 'openai-rx' },
];

/** Contenders for the Responses workloads (text, tools). */
export const responsesContenders = [
  { name: 'floor (hand-written)', group: 'floor', run: async (ctx) => floorDecode(await post(ctx, '/responses', RESPONSES_BODY), responsesAccumulator()) },
  { name: 'eventsource-parser + JSON.parse', group: 'baseline', run: async (ctx) => eventsourceParserDecode(await post(ctx, '/responses', RESPONSES_BODY), responsesAccumulator()) },
  {
    name: 'openai SDK responses.stream() → finalResponse()', group: 'sdk',
    run: async (ctx) => {
      const client = new OpenAI({ apiKey: 'bench', baseURL: ctx.baseURL, fetch: ctx.fetch, maxRetries: 0 });
      const r = await client.responses.stream(RESPONSES_BODY).finalResponse();
      const reasoning = r.output.filter((o) => o.type === 'reasoning').flatMap((o) => o.summary.map((s) => s.text)).join('');
      const calls = r.output.filter((o) => o.type === 'function_call').map((o) => ({ name: o.name, callId: o.call_id, arguments: o.arguments }));
      return { text: r.output_text, reasoning, calls };
    },
  },
  {
    name: 'AI SDK openai.responses().doStream()', group: 'sdk',
    run: async (ctx) => {
      const provider = createOpenAI({ apiKey: 'bench', baseURL: ctx.baseURL, fetch: ctx.fetch });
      const { stream } = await provider.responses(MODEL).doStream({ prompt: PROMPT });
      let text = '';
      let reasoning = '';
      const calls = [];
      for await (const p of stream) {
        if (p.type === 'text-delta') text += p.delta;
        else if (p.type === 'reasoning-delta') reasoning += p.delta;
        else if (p.type === 'tool-call') calls.push({ name: p.toolName, callId: p.toolCallId, arguments: p.input });
        else if (p.type === 'error') throw p.error instanceof Error ? p.error : new Error(JSON.stringify(p.error));
      }
      return { text, reasoning, calls };
    },
  },
  ...strictOff({
    name: 'rx fromResponsesSSE', need: () => needs('streamResponse'),
    run: async (ctx, c) => {
      const acc = responsesAccumulator();
      await drain(rx.streamResponse(RESPONSES_BODY, rxConfig(ctx, c.validate)), (e) => acc.event(e));
      return acc.result();
    },
  }),
  ...strictOff({
    name: 'rx + accumulateText', need: () => needs('streamResponse', 'accumulateText'),
    run: async (ctx, c) => {
      const r = { text: '', reasoning: '' };
      await drain(textSnapshots(ctx, c.validate), (s) => fromSnapshot(r, s));
      return r;
    },
  }),
  ...strictOff({
    name: 'rx + collectToolCalls', workloads: ['tools'], need: () => needs('streamResponse', 'collectToolCalls'),
    run: async (ctx, c) => {
      const r = { calls: [] };
      await drain(rx.streamResponse(RESPONSES_BODY, rxConfig(ctx, c.validate)).pipe(rx.collectToolCalls()), (t) => fromToolCall(r, t));
      return r;
    },
  }),
  ...strictOff({
    name: 'rx pipeline: fanOut(accumulateText, collectToolCalls)', pipeline: true, need: () => needs('streamResponse', 'accumulateText', 'collectToolCalls', 'fanOut'),
    run: (ctx, c) => runPipeline(ctx, c, () => rx.fanOut(rx.accumulateText(TEXT_KINDS), rx.collectToolCalls())),
  }),
  ...strictOff({
    // The same pipeline with RxJS's own multicast, for comparison (not what the targets measure).
    name: 'rx pipeline via connect + merge', need: () => needs('streamResponse', 'accumulateText', 'collectToolCalls'),
    run: (ctx, c) => runPipeline(ctx, c, () => connect((events$) => merge(events$.pipe(rx.accumulateText(TEXT_KINDS)), events$.pipe(rx.collectToolCalls())))),
  }),
  ...strictOff({
    name: 'rx + toChatChunks', need: () => needs('streamResponse', 'toChatChunks'),
    run: async (ctx, c) => {
      let text = '';
      let reasoning = '';
      const calls = [];
      await drain(rx.streamResponse(RESPONSES_BODY, rxConfig(ctx, c.validate)).pipe(rx.toChatChunks()), (k) => {
        const d = k.choices[0]?.delta;
        if (d === undefined) return;
        if (d.content) text += d.content;
        if (d.reasoning_content) reasoning += d.reasoning_content;
        if (d.tool_calls) {
          for (const t of d.tool_calls) {
            const call = (calls[t.index] ??= { name: '', callId: '', arguments: '' });
            if (t.id) call.callId = t.id;
            if (t.function?.name) call.name = t.function.name;
            if (t.function?.arguments) call.arguments += t.function.arguments;
          }
        }
      });
      return { text, reasoning, calls };
    },
  }),
];

/** Contenders for the chat workload. */
export const chatContenders = [
  { name: 'floor (hand-written)', group: 'floor', run: async (ctx) => floorDecode(await post(ctx, '/chat/completions', CHAT_BODY), chatAccumulator()) },
  { name: 'eventsource-parser + JSON.parse', group: 'baseline', run: async (ctx) => eventsourceParserDecode(await post(ctx, '/chat/completions', CHAT_BODY), chatAccumulator()) },
  {
    name: 'openai SDK chat.completions.stream() → finalChatCompletion()', group: 'sdk',
    run: async (ctx) => {
      const client = new OpenAI({ apiKey: 'bench', baseURL: ctx.baseURL, fetch: ctx.fetch, maxRetries: 0 });
      const r = await client.chat.completions.stream(CHAT_BODY).finalChatCompletion();
      return { text: r.choices[0].message.content, finishReason: r.choices[0].finish_reason, totalTokens: r.usage?.total_tokens };
    },
  },
  {
    name: 'AI SDK openai.chat().doStream()', group: 'sdk',
    run: async (ctx) => {
      const provider = createOpenAI({ apiKey: 'bench', baseURL: ctx.baseURL, fetch: ctx.fetch });
      const { stream } = await provider.chat(MODEL).doStream({ prompt: PROMPT });
      let text = '';
      let finishReason;
      let totalTokens;
      for await (const p of stream) {
        if (p.type === 'text-delta') text += p.delta;
        else if (p.type === 'finish') {
          finishReason = typeof p.finishReason === 'string' ? p.finishReason : p.finishReason?.raw ?? p.finishReason?.unified;
          totalTokens = (p.usage?.inputTokens?.total ?? 0) + (p.usage?.outputTokens?.total ?? 0);
        } else if (p.type === 'error') throw p.error instanceof Error ? p.error : new Error(JSON.stringify(p.error));
      }
      return { text, finishReason, totalTokens };
    },
  },
  ...strictOff({
    name: 'rx fromChatCompletionsSSE', need: () => needs('streamChatCompletion'),
    run: async (ctx, c) => {
      const acc = chatAccumulator();
      await drain(rx.streamChatCompletion(CHAT_BODY, rxConfig(ctx, c.validate)), (k) => acc.event(k));
      return acc.result();
    },
  }),
  ...strictOff({
    name: 'rx + fromChatChunks + accumulateText', pipeline: true, need: () => needs('streamChatCompletion', 'fromChatChunks', 'accumulateText'),
    run: async (ctx, c) => {
      const r = { text: '' };
      await drain(rx.streamChatCompletion(CHAT_BODY, rxConfig(ctx, c.validate)).pipe(rx.fromChatChunks(), rx.accumulateText()), (s) => fromSnapshot(r, s));
      return r;
    },
  }),
];

/** Throws when a result is not what the workload must produce; fields a contender does not produce are skipped. */
export function check(w, r) {
  const e = w.expect;
  const fail = (what) => {
    throw new Error(`wrong result: ${what}`);
  };
  if (w.kind === 'chat') {
    if (r.text !== undefined && r.text !== e.text) fail(`text (${r.text.length} chars, want ${e.text.length})`);
    if (r.finishReason !== undefined && r.finishReason !== e.finishReason) fail(`finish reason ${r.finishReason}`);
    if (r.totalTokens !== undefined && r.totalTokens !== e.totalTokens) fail(`total tokens ${r.totalTokens}, want ${e.totalTokens}`);
    return;
  }
  if (r.text !== undefined && r.text !== e.text) fail(`text (${r.text.length} chars, want ${e.text.length})`);
  if (r.reasoning !== undefined && r.reasoning !== e.reasoning) fail(`reasoning (${r.reasoning.length} chars, want ${e.reasoning.length})`);
  if (r.calls !== undefined) {
    if (r.calls.length !== e.calls.length) fail(`${r.calls.length} tool calls, want ${e.calls.length}`);
    e.calls.forEach((x, i) => {
      const y = r.calls[i];
      if (y.name !== x.name || y.callId !== x.callId || y.arguments !== x.arguments) fail(`tool call ${i}`);
      if ('parsed' in y && JSON.stringify(y.parsed) !== x.arguments) fail(`tool call ${i} parsed arguments`);
    });
  }
}
