// Deterministic, seeded stream workloads, generated at run time (nothing large is committed).
// Each workload is the SSE body as bytes plus what a correct consumer must end up with.

/** mulberry32: small, fast, seeded. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  next.pick = (xs) => xs[Math.floor(next() * xs.length)];
  return next;
}

const WORDS = (
  'the of and to in is that for it as with was on be by this are or from at which an have not but were all can we one ' +
  'stream event token response model delta function argument parse buffer chunk server client latency throughput memory ' +
  'observable operator pipeline reasoning summary weather forecast temperature Paris Tokyo São Zürich naïve café 東京 データ'
).split(' ');
const PUNCT = ['', '', '', '', ',', '.', '.\n\n', ':', ' —', '!', ' 🙂'];
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function obfuscation(r) {
  let s = '';
  for (let i = r.int(1, 16); i > 0; i--) s += ALNUM[Math.floor(r() * 62)];
  return s;
}
function hexId(r, prefix) {
  let s = prefix;
  for (let i = 0; i < 32; i++) s += '0123456789abcdef'[Math.floor(r() * 16)];
  return s;
}
/** A model-sized text delta: one word, sometimes punctuation, sometimes multi-byte characters. */
function wordDelta(r, first) {
  return (first ? '' : ' ') + r.pick(WORDS) + r.pick(PUNCT);
}


/**
 * Responses body builder: collects `event:`/`data:` blocks and numbers events.
 * Pieces are pushed to an array and joined once (fast for hundreds of thousands of events).
 */
class ResponsesWriter {
  constructor() {
    this.parts = [];
    this.seq = 0;
    this.events = 0;
  }
  emit(type, fields) {
    // type first, sequence_number last, as the API writes them
    const json = JSON.stringify({ type, ...fields, sequence_number: this.seq++ });
    this.parts.push('event: ', type, '\ndata: ', json, '\n\n');
    this.events++;
  }
  bytes() {
    return Buffer.from(this.parts.join(''), 'utf8');
  }
}

function responseShell(id, status, output, usage) {
  return {
    id, object: 'response', created_at: 1758200000, status, model: 'gpt-5.4-nano-2026-03-17', output,
    usage, error: null, incomplete_details: null, previous_response_id: null, parallel_tool_calls: true,
    reasoning: { effort: 'medium', summary: 'auto' }, text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto', tools: [], temperature: 1, top_p: 1, truncation: 'disabled', store: true, metadata: {},
  };
}
const USAGE = (out) => ({
  input_tokens: 1234, input_tokens_details: { cached_tokens: 0 }, output_tokens: out,
  output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1234 + out,
});

function messageItems(w, r, outputIndex, deltas) {
  const id = hexId(r, 'msg_');
  w.emit('response.output_item.added', {
    output_index: outputIndex, item: { id, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
  });
  w.emit('response.content_part.added', {
    item_id: id, output_index: outputIndex, content_index: 0, part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
  });
  const pieces = [];
  for (let i = 0; i < deltas; i++) {
    const delta = wordDelta(r, i === 0);
    pieces.push(delta);
    w.emit('response.output_text.delta', {
      item_id: id, output_index: outputIndex, content_index: 0, delta, logprobs: [], obfuscation: obfuscation(r),
    });
  }
  const text = pieces.join('');
  w.emit('response.output_text.done', { item_id: id, output_index: outputIndex, content_index: 0, text, logprobs: [] });
  const part = { type: 'output_text', annotations: [], logprobs: [], text };
  w.emit('response.content_part.done', { item_id: id, output_index: outputIndex, content_index: 0, part });
  const item = { id, type: 'message', status: 'completed', content: [part], role: 'assistant' };
  w.emit('response.output_item.done', { output_index: outputIndex, item });
  return { text, item };
}

/** text: one message of `deltas` output_text deltas. */
export function textWorkload(deltas = 200_000, seed = 1) {
  const r = rng(seed);
  const w = new ResponsesWriter();
  const id = hexId(r, 'resp_');
  w.emit('response.created', { response: responseShell(id, 'in_progress', [], null) });
  w.emit('response.in_progress', { response: responseShell(id, 'in_progress', [], null) });
  const { text, item } = messageItems(w, r, 0, deltas);
  w.emit('response.completed', { response: responseShell(id, 'completed', [item], USAGE(deltas)) });
  return { kind: 'responses', name: 'text', bytes: w.bytes(), events: w.events, expect: { text, reasoning: '', calls: [] } };
}

const CITIES = ['Paris', 'Tokyo', 'São Paulo', 'Zürich', 'Reykjavík', 'Lagos', 'Montréal', '東京'];
function splitInto(r, s, n) {
  // n non-empty pieces at random cut points
  const cuts = new Set();
  while (cuts.size < n - 1) cuts.add(r.int(1, s.length - 1));
  const at = [0, ...[...cuts].sort((a, b) => a - b), s.length];
  const out = [];
  for (let i = 0; i < n; i++) out.push(s.slice(at[i], at[i + 1]));
  return out;
}

/** tools: a reasoning summary of `summaryDeltas` deltas, `calls` function calls of `argDeltas` deltas each, then a short message. */
export function toolsWorkload(summaryDeltas = 2_000, calls = 500, argDeltas = 40, seed = 2) {
  const r = rng(seed);
  const w = new ResponsesWriter();
  const id = hexId(r, 'resp_');
  w.emit('response.created', { response: responseShell(id, 'in_progress', [], null) });
  w.emit('response.in_progress', { response: responseShell(id, 'in_progress', [], null) });
  const output = [];
  // reasoning summary
  const rsId = hexId(r, 'rs_');
  w.emit('response.output_item.added', { output_index: 0, item: { id: rsId, type: 'reasoning', summary: [] } });
  w.emit('response.reasoning_summary_part.added', { item_id: rsId, output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } });
  const rp = [];
  for (let i = 0; i < summaryDeltas; i++) {
    const delta = wordDelta(r, i === 0);
    rp.push(delta);
    w.emit('response.reasoning_summary_text.delta', { item_id: rsId, output_index: 0, summary_index: 0, delta, obfuscation: obfuscation(r) });
  }
  const reasoning = rp.join('');
  w.emit('response.reasoning_summary_text.done', { item_id: rsId, output_index: 0, summary_index: 0, text: reasoning });
  w.emit('response.reasoning_summary_part.done', { item_id: rsId, output_index: 0, summary_index: 0, part: { type: 'summary_text', text: reasoning } });
  const rsItem = { id: rsId, type: 'reasoning', summary: [{ type: 'summary_text', text: reasoning }] };
  w.emit('response.output_item.done', { output_index: 0, item: rsItem });
  output.push(rsItem);
  // function calls
  const expected = [];
  for (let c = 0; c < calls; c++) {
    const oi = 1 + c;
    const fcId = hexId(r, 'fc_');
    const callId = 'call_' + obfuscation(r) + c;
    const name = r.pick(['get_weather', 'search_docs', 'create_event', 'lookup_user']);
    const args = JSON.stringify({
      city: r.pick(CITIES), days: r.int(1, 14), units: r.pick(['metric', 'imperial']),
      query: [wordDelta(r, true), wordDelta(r, false), wordDelta(r, false)].join(''), include_hourly: r() < 0.5,
      tags: [r.pick(WORDS), r.pick(WORDS)],
    });
    w.emit('response.output_item.added', {
      output_index: oi, item: { id: fcId, type: 'function_call', status: 'in_progress', arguments: '', call_id: callId, name },
    });
    for (const delta of splitInto(r, args, argDeltas)) {
      w.emit('response.function_call_arguments.delta', { item_id: fcId, output_index: oi, delta, obfuscation: obfuscation(r) });
    }
    w.emit('response.function_call_arguments.done', { item_id: fcId, output_index: oi, name, arguments: args });
    const item = { id: fcId, type: 'function_call', status: 'completed', arguments: args, call_id: callId, name };
    w.emit('response.output_item.done', { output_index: oi, item });
    output.push(item);
    expected.push({ name, callId, arguments: args });
  }
  const { text, item } = messageItems(w, r, 1 + calls, 24);
  output.push(item);
  w.emit('response.completed', { response: responseShell(id, 'completed', output, USAGE(summaryDeltas + calls * argDeltas + 24)) });
  return { kind: 'responses', name: 'tools', bytes: w.bytes(), events: w.events, expect: { text, reasoning, calls: expected } };
}

/** chat: `n` content chunks after a role chunk, then a finish chunk, the usage chunk and `[DONE]`. */
export function chatWorkload(n = 200_000, seed = 3) {
  const r = rng(seed);
  const id = 'chatcmpl-' + obfuscation(r) + obfuscation(r);
  const head = { id, object: 'chat.completion.chunk', created: 1758200000, model: 'gpt-4.1-nano-2025-04-14', service_tier: 'default', system_fingerprint: 'fp_7c2e1b4a9d' };
  const parts = [];
  const push = (o) => parts.push('data: ', JSON.stringify(o), '\n\n');
  push({ ...head, choices: [{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }], usage: null, obfuscation: obfuscation(r) });
  const pieces = [];
  for (let i = 0; i < n; i++) {
    const content = wordDelta(r, i === 0);
    pieces.push(content);
    push({ ...head, choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }], usage: null, obfuscation: obfuscation(r) });
  }
  push({ ...head, choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }], usage: null, obfuscation: obfuscation(r) });
  const usage = { prompt_tokens: 1234, completion_tokens: n, total_tokens: 1234 + n, prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } };
  push({ ...head, choices: [], usage, obfuscation: obfuscation(r) });
  parts.push('data: [DONE]\n\n');
  return { kind: 'chat', name: 'chat', bytes: Buffer.from(parts.join(''), 'utf8'), events: n + 3, expect: { text: pieces.join(''), finishReason: 'stop', totalTokens: usage.total_tokens } };
}

/** A small mixed response (text + a few tool calls) that differs per stream, for the load figure. */
export function loadWorkload(index) {
  const r = rng(1000 + index);
  const w = toolsWorkload(20 + (index % 7), 2 + (index % 3), 12, 5000 + index);
  void r;
  return { ...w, name: `load-${index}` };
}

/** Cut bytes into seeded network-sized chunks (1–16 KiB), as views (no copies). */
export function chunk(bytes, seed = 7, lo = 1024, hi = 16384) {
  const r = rng(seed);
  const out = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.min(r.int(lo, hi), bytes.length - at);
    out.push(new Uint8Array(bytes.buffer, bytes.byteOffset + at, n));
    at += n;
  }
  return out;
}

/** Workload by name and generator arguments (the server and the client build the same bytes from the same seeds). */
export function workload(name, args = []) {
  switch (name) {
    case 'text': return textWorkload(...args);
    case 'tools': return toolsWorkload(...args);
    case 'chat': return chatWorkload(...args);
    default:
      if (name.startsWith('load-')) return loadWorkload(Number(name.slice(5)));
      throw new Error(`unknown workload ${name}`);
  }
}
