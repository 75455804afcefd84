// Operator scaling: the cost per event at 1,000 and at 100,000 along each dimension an operator accumulates
// (events, parts, items, content parts, annotations, argument size), and the peak heap for a 10 MB argument
// streamed one character at a time and for a long outputText() stream.
//
//   node --expose-gc bench/scaling.mjs [--quick] [--runs N] [--filter 'toChatChunks() calls'] [--large N] [--no-memory]
//   (or, with the other sections' scaling: npm run bench -- --only scaling)
//
// Events are built in memory (no decoding), so the figures are the operators' own. "ratio" is the cost per
// event at 100k / at 1k: flat (≈1; target ≤ 1.5) means linear overall. The 1k case is repeated 100 times so
// that both sizes run the same number of events.
import { pathToFileURL } from 'node:url';
import { Observable } from 'rxjs';

const MB = 1024 * 1024;
const gc = globalThis.gc ?? (() => {});
const now = () => performance.now();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const fmtNum = (x, d = 1) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(d));

async function loadRx() {
  const root = process.env.OPENAI_RX_DIST ? new URL(`file://${process.env.OPENAI_RX_DIST.replace(/\/?$/, '/')}`) : new URL('../dist/', import.meta.url);
  return import(new URL('esm/index.js', root).href);
}

// ---- event builders (shapes as on the wire) ----
let seq = 0;
const e = (o) => ((o.sequence_number = seq++), o);
const resp = (status, output = []) => ({ id: 'resp_1', object: 'response', created_at: 1, status, model: 'm', output, usage: null });
const created = () => e({ type: 'response.created', response: resp('in_progress') });
const completed = (output = []) => e({ type: 'response.completed', response: resp('completed', output) });
const msg = (id, content = [], status = 'in_progress') => ({ id, type: 'message', role: 'assistant', status, content });
const itemAdded = (oi, item) => e({ type: 'response.output_item.added', output_index: oi, item });
const itemDone = (oi, item) => e({ type: 'response.output_item.done', output_index: oi, item });
const partAdded = (id, oi, ci) => e({ type: 'response.content_part.added', item_id: id, output_index: oi, content_index: ci, part: { type: 'output_text', text: '', annotations: [] } });
const delta = (id, oi, ci, d) => e({ type: 'response.output_text.delta', item_id: id, output_index: oi, content_index: ci, delta: d, logprobs: [] });
const textDone = (id, oi, ci, text) => e({ type: 'response.output_text.done', item_id: id, output_index: oi, content_index: ci, text, logprobs: [] });
const annotation = (oi, ci, ai) => e({ type: 'response.output_text.annotation.added', item_id: 'm', output_index: oi, content_index: ci, annotation_index: ai, annotation: { type: 'url_citation', start_index: 0, end_index: 1, url: 'https://x.test', title: 't' } });
const fc = (id, callId, args = '', status = 'in_progress') => ({ id, type: 'function_call', call_id: callId, name: 'f', arguments: args, status });
const argsDelta = (id, oi, d) => e({ type: 'response.function_call_arguments.delta', item_id: id, output_index: oi, delta: d });
const chatChunk = (delta, finish = null) => ({ id: 'chatcmpl_1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });

/** A source that builds its events as it emits them (a 10M-event stream is never held whole). */
const generated = (gen) => new Observable((sub) => {
  for (const x of gen()) {
    if (sub.closed) return;
    sub.next(x);
  }
  sub.complete();
});

// Each workload: n → a generator of events. Every one emits Θ(n) events.
const W = {
  // outputText: n parts of one message, each a delta and a .done that corrects it (the part-closing path)
  textParts: (n) => function* () {
    yield created();
    yield itemAdded(0, msg('m'));
    for (let ci = 0; ci < n; ci++) {
      yield partAdded('m', 0, ci);
      yield delta('m', 0, ci, 'ab');
      yield textDone('m', 0, ci, 'abc');
    }
    yield completed();
  },
  // the same n parts opened in descending output_index (each part lands before every other in output order)
  textPartsDescending: (n) => function* () {
    yield created();
    for (let oi = n - 1; oi >= 0; oi--) {
      yield itemAdded(oi, msg(`m${oi}`));
      yield partAdded(`m${oi}`, oi, 0);
      yield delta(`m${oi}`, oi, 0, 'ab');
      yield textDone(`m${oi}`, oi, 0, 'abc');
    }
    yield completed();
  },
  // n text deltas on one part
  textEvents: (n) => function* () {
    yield created();
    yield itemAdded(0, msg('m'));
    yield partAdded('m', 0, 0);
    for (let i = 0; i < n; i++) yield delta('m', 0, 0, 'abcdefg');
    yield completed();
  },
  // n message items, each opened, one delta, closed
  items: (n) => function* () {
    yield created();
    for (let oi = 0; oi < n; oi++) {
      yield itemAdded(oi, msg(`m${oi}`));
      yield partAdded(`m${oi}`, oi, 0);
      yield delta(`m${oi}`, oi, 0, 'abc');
      yield itemDone(oi, msg(`m${oi}`, [{ type: 'output_text', text: 'abc', annotations: [] }], 'completed'));
    }
    yield completed();
  },
  // one message with n content parts, one delta each
  contentParts: (n) => function* () {
    yield created();
    yield itemAdded(0, msg('m'));
    for (let ci = 0; ci < n; ci++) {
      yield partAdded('m', 0, ci);
      yield delta('m', 0, ci, 'abc');
    }
    yield completed();
  },
  // one part with n annotations
  annotations: (n) => function* () {
    yield created();
    yield itemAdded(0, msg('m'));
    yield partAdded('m', 0, 0);
    yield delta('m', 0, 0, 'abc');
    for (let ai = 0; ai < n; ai++) yield annotation(0, 0, ai);
    yield completed();
  },
  // one function call whose arguments are n characters, one per delta
  argChars: (n) => function* () {
    yield created();
    yield itemAdded(0, fc('fc_1', 'call_1'));
    yield argsDelta('fc_1', 0, '"');
    for (let i = 0; i < n - 2; i++) yield argsDelta('fc_1', 0, String.fromCharCode(97 + (i % 26)));
    yield argsDelta('fc_1', 0, '"');
    yield itemDone(0, fc('fc_1', 'call_1', '"x"', 'completed')); // the closed item's text (short: the streamed one is what is measured)
    yield completed();
  },
  // n function calls
  calls: (n) => function* () {
    yield created();
    for (let oi = 0; oi < n; oi++) {
      yield itemAdded(oi, fc(`fc_${oi}`, `call_${oi}`));
      yield argsDelta(`fc_${oi}`, oi, '{}');
      yield itemDone(oi, fc(`fc_${oi}`, `call_${oi}`, '{}', 'completed'));
    }
    yield completed();
  },
  // chat chunks: one tool call whose arguments are n characters, one per chunk
  chatArgChars: (n) => function* () {
    yield chatChunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] });
    for (let i = 0; i < n; i++) yield chatChunk({ tool_calls: [{ index: 0, function: { arguments: 'a' } }] });
    yield chatChunk({}, 'tool_calls');
  },
};

/** Runs `gen` through `op` and returns the number of events and values. */
function drain(rx, gen, op) {
  let events = 0;
  let values = 0;
  let error;
  generated(function* () {
    for (const x of gen()) {
      events++;
      yield x;
    }
  }).pipe(op()).subscribe({ next: () => values++, error: (err) => (error = err) });
  if (error) throw error;
  return { events, values };
}

/** ns per event at size n: the workload repeated so that about `total` events run, median of `runs`. */
function perEvent(rx, make, op, n, total, runs) {
  const gen = make(n);
  const reps = Math.max(1, Math.round(total / n));
  const times = [];
  let events = 0;
  for (let r = 0; r < runs; r++) {
    gc();
    events = 0;
    const t0 = now();
    for (let i = 0; i < reps; i++) events += drain(rx, gen, op).events;
    times.push(now() - t0);
  }
  return (median(times) * 1e6) / events;
}

/** Peak heap growth (sampled every 16k events) while `gen` runs through `op`; the last value is held. */
function peakHeap(gen, op) {
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  let count = 0;
  let last;
  generated(function* () {
    for (const x of gen()) {
      if ((++count & 0x3fff) === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
      yield x;
    }
  }).pipe(op()).subscribe({ next: (v) => (last = v) });
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  gc();
  const retained = process.memoryUsage().heapUsed - base;
  void last;
  return { peak: (peak - base) / MB, retained: retained / MB };
}

/** Retained heap mid-stream: the part still open, the operator's state and the last value held. */
function retainedMidStream(gen, op) {
  gc();
  const base = process.memoryUsage().heapUsed;
  let last;
  const it = gen();
  const sub = new Observable((s) => {
    for (const x of it) s.next(x); // stops before completion: the generator below never ends the stream
  }).pipe(op()).subscribe({ next: (v) => (last = v) });
  gc();
  const retained = (process.memoryUsage().heapUsed - base) / MB;
  sub.unsubscribe();
  return { retained, last };
}

export async function operatorScaling({ quick = false, runs = quick ? 2 : 3, table, fmt = fmtNum, rx: given, only, large: largeN, memory = true } = {}) {
  const rx = given ?? (await loadRx());
  const print = table ?? printTable;
  const small = 1_000;
  const large = largeN ?? (quick ? 20_000 : 100_000);
  const total = large * 1; // both sizes run about as many events
  const cases = [
    ['outputText()', 'parts', W.textParts, () => rx.outputText()],
    ['outputText()', 'parts, descending output_index', W.textPartsDescending, () => rx.outputText()],
    ['outputText()', 'events (deltas)', W.textEvents, () => rx.outputText()],
    ['accumulateText()', 'parts', W.textParts, () => rx.accumulateText()],
    ['accumulateResponse()', 'items', W.items, () => rx.accumulateResponse()],
    ['accumulateResponse()', 'content parts', W.contentParts, () => rx.accumulateResponse()],
    ['accumulateResponse()', 'annotations', W.annotations, () => rx.accumulateResponse()],
    ['accumulateResponse()', 'events (deltas)', W.textEvents, () => rx.accumulateResponse()],
    ['accumulateResponse()', 'argument size', W.argChars, () => rx.accumulateResponse()],
    ['collectToolCalls()', 'argument size', W.argChars, () => rx.collectToolCalls({ partial: true })],
    ['collectToolCalls()', 'calls', W.calls, () => rx.collectToolCalls()],
    ['toChatChunks()', 'argument size', W.argChars, () => rx.toChatChunks()],
    ['toChatChunks()', 'events (deltas)', W.textEvents, () => rx.toChatChunks()],
    ['toChatChunks()', 'calls', W.calls, () => rx.toChatChunks()],
    ['fromChatChunks()', 'argument size', W.chatArgChars, () => rx.fromChatChunks()],
  ];
  const rows = [];
  for (const [op, dim, make, f] of cases) {
    if (only !== undefined && !`${op} ${dim}`.includes(only)) continue;
    perEvent(rx, make, f, small, 20_000, 1); // warm-up
    const a = perEvent(rx, make, f, small, total, runs);
    const b = perEvent(rx, make, f, large, total, runs);
    rows.push({ operator: op, dimension: dim, smallNs: a, largeNs: b, ratio: b / a });
    process.stderr.write('.');
  }
  console.log(`\n## Operator scaling — ns per event at ${small.toLocaleString('en')} vs ${large.toLocaleString('en')} along each dimension, in memory, no decoding (median of ${runs}); target: ratio ≤ 1.5`);
  print(['operator', 'dimension', `ns/event at ${small / 1000}k`, `ns/event at ${large / 1000}k`, 'ratio'],
    rows.map((r) => [r.operator, r.dimension, fmt(r.smallNs, 0), fmt(r.largeNs, 0), fmt(r.ratio, 2)]));

  if (!memory) return { rows, memory: [] };
  // Memory: a 10 MB argument one character at a time, and a long outputText() stream.
  const chars = quick ? 2 * MB : 10 * MB;
  const mem = [];
  for (const [op, make, f] of [
    ['collectToolCalls({ partial: true })', W.argChars, () => rx.collectToolCalls({ partial: true })],
    ['accumulateResponse()', W.argChars, () => rx.accumulateResponse()],
    ['toChatChunks()', W.argChars, () => rx.toChatChunks()],
    ['fromChatChunks()', W.chatArgChars, () => rx.fromChatChunks()],
  ]) {
    const { peak } = peakHeap(make(chars), f);
    mem.push({ what: op, input: `${fmt(chars / MB, 0)} MB argument, 1 char per event`, peakMB: peak, ratio: peak / (chars / MB) });
    process.stderr.write('.');
  }
  // outputText: the part still open, every delta one character; retained = operator state + the last string held
  const textChars = quick ? 2 * MB : 10 * MB;
  const open = function* () {
    yield created();
    yield itemAdded(0, msg('m'));
    yield partAdded('m', 0, 0);
    for (let i = 0; i < textChars; i++) yield delta('m', 0, 0, String.fromCharCode(97 + (i % 26)));
  };
  for (const [op, f] of [['outputText()', () => rx.outputText()], ['accumulateText()', () => rx.accumulateText()]]) {
    const { retained } = retainedMidStream(open, f);
    mem.push({ what: op, input: `${fmt(textChars / MB, 0)} MB of text, 1 char per delta, part open (retained)`, peakMB: retained, ratio: retained / (textChars / MB) });
    process.stderr.write('.');
  }
  console.log('\n## Operator memory — heap above the start (peak while streaming, or retained mid-stream), x the text size');
  print(['operator', 'stream', 'MB', 'x text'], mem.map((m) => [m.what, m.input, fmt(m.peakMB), fmt(m.ratio, 2)]));
  return { rows, memory: mem };
}

function printTable(head, body) {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => String(r[i]).length)));
  const line = (cells) => '| ' + cells.map((c, i) => (i < 2 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ') + ' |';
  console.log(line(head));
  console.log('|' + widths.map((w, i) => (i < 2 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|');
  for (const r of body) console.log(line(r));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!globalThis.gc) console.warn('(run with --expose-gc for the memory figures)');
  const argv = process.argv.slice(2);
  const runs = argv.includes('--runs') ? Number(argv[argv.indexOf('--runs') + 1]) : undefined;
  const opt = (k) => (argv.includes(k) ? argv[argv.indexOf(k) + 1] : undefined);
  await operatorScaling({ quick: argv.includes('--quick'), ...(runs && { runs }), only: opt('--filter'), ...(opt('--large') && { large: Number(opt('--large')) }), memory: !argv.includes('--no-memory') });
}
