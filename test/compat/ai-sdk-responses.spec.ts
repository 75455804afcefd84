import { lastValueFrom, toArray, type Observable } from 'rxjs';
import {
  accumulateResponse, accumulateText, collectToolCalls, DecodeError, fromResponsesSSE, outputText, ResponseStreamError,
  type ResponsesSSEOptions, type ResponseStreamEvent, type ToolCall,
} from '../../index';
import { run } from '../decode/sources';

// Responses streams in the shapes the Vercel AI SDK's own tests feed its OpenAI Responses model
// (packages/openai/src/responses/openai-responses-language-model.test.ts and its __fixtures__): `data:` with
// no space and no `event:` line, no `sequence_number`, ids that change between an item's events, several
// kinds of annotation, reasoning summaries, hosted tools, and errors in every place. The ids, text and
// numbers here are our own. Each test checks what the AI SDK test expects of the same input (text, tool
// calls, usage, finish reason) with our operators, or says why openai-rx answers differently.

type Json = Record<string, unknown>;

/** One SSE message the way the AI SDK's tests write it: `data:` with no space, no `event:` line. */
const data = (payload: Json): string => `data:${JSON.stringify(payload)}\n\n`;
const body = (...payloads: Json[]): string => payloads.map(data).join('');

const usage = (input: number, cached: number, output: number, reasoning: number): Json => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: cached },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: reasoning },
  total_tokens: input + output,
});

/** A `response` object as the API echoes it (the fields the AI SDK's chunks carry). */
const response = (id: string, extra: Json = {}): Json => ({
  id, object: 'response', created_at: 1767225600, status: 'in_progress', error: null, incomplete_details: null,
  instructions: null, max_output_tokens: null, model: 'gpt-test-2026-01-01', output: [], parallel_tool_calls: true,
  previous_response_id: null, reasoning: { effort: null, summary: null }, store: true, temperature: 0,
  text: { format: { type: 'text' } }, tool_choice: 'auto', tools: [], top_p: 1, truncation: 'disabled', usage: null,
  user: null, metadata: {}, ...extra,
});

const created = (id: string, extra: Json = {}): Json => ({ type: 'response.created', response: response(id, extra) });
const inProgress = (id: string): Json => ({ type: 'response.in_progress', response: response(id) });
const completed = (id: string, output: Json[], u: Json, extra: Json = {}): Json => ({
  type: 'response.completed', response: response(id, { status: 'completed', output, usage: u, ...extra }),
});

const message = (id: string, text: string, status = 'completed', annotations: Json[] = []): Json => ({
  id, type: 'message', status, role: 'assistant', content: [{ type: 'output_text', text, annotations }],
});

const decode = (sse: string, options?: ResponsesSSEOptions) => run(fromResponsesSSE(sse, options));
const last = <T>(o: Observable<T>): Promise<T> => lastValueFrom(o);
const all = <T>(o: Observable<T>): Promise<T[]> => lastValueFrom(o.pipe(toArray()));
const finalResponse = (sse: string) => last(fromResponsesSSE(sse).pipe(accumulateResponse())) as Promise<Json>;
const finalText = (sse: string) => lastValueFrom(fromResponsesSSE(sse).pipe(outputText()), { defaultValue: '' });
const toolCalls = (sse: string, hosted = false) => all(fromResponsesSSE(sse).pipe(collectToolCalls({ hosted })));

/**
 * The AI SDK's finish reason, from what openai-rx gives: the terminal event and the calls collected.
 * (`stop`, `length` for max_output_tokens, `content-filter`, `tool-calls` when a function call was made.)
 */
function finishReason(events: ResponseStreamEvent[], calls: ToolCall[]): string {
  const terminal = events.at(-1) as { type: string; response?: { incomplete_details?: { reason?: string } | null } };
  if (terminal.type === 'response.incomplete') {
    const reason = terminal.response?.incomplete_details?.reason;
    return reason === 'max_output_tokens' ? 'length' : reason === 'content_filter' ? 'content-filter' : 'other';
  }
  return calls.some((c) => c.type === 'function_call' || c.type === 'custom_tool_call') ? 'tool-calls' : 'stop';
}

describe('text', () => {
  // As in the AI SDK's "should stream text deltas": the ids of the text's closing events are not the id it
  // streamed under, and the terminal response has an id of its own.
  const sse = body(
    created('resp_txt_1'),
    inProgress('resp_txt_1'),
    { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_txt_a', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
    { type: 'response.content_part.added', item_id: 'msg_txt_a', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } },
    { type: 'response.output_text.delta', item_id: 'msg_txt_a', output_index: 0, content_index: 0, delta: 'Good', logprobs: [] },
    { type: 'response.output_text.delta', item_id: 'msg_txt_a', output_index: 0, content_index: 0, delta: ' morning.', logprobs: [] },
    { type: 'response.output_text.done', item_id: 'msg_txt_b', output_index: 0, content_index: 0, text: 'Good morning.' },
    { type: 'response.content_part.done', item_id: 'msg_txt_b', output_index: 0, content_index: 0, part: { type: 'output_text', text: 'Good morning.', annotations: [], logprobs: [] } },
    { type: 'response.output_item.done', output_index: 0, item: message('msg_txt_b', 'Good morning.') },
    completed('resp_txt_2', [message('msg_txt_b', 'Good morning.')], usage(610, 200, 420, 100), { service_tier: 'default' }),
  );

  test('events without sequence_number and without `event:` lines decode and complete (default options)', async () => {
    const out = await decode(sse);
    expect(out.error).toBeUndefined();
    expect(out.completed).toBe(true);
    expect(out.values.map((e) => e.type)).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
      'response.output_text.delta', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done',
      'response.output_item.done', 'response.completed',
    ]);
    expect(out.values.every((e) => !('sequence_number' in e))).toBe(true);
  });

  test('the text, the usage and the finish reason the AI SDK reports', async () => {
    expect(await all(fromResponsesSSE(sse).pipe(outputText()))).toEqual(['Good', 'Good morning.']);
    const final = await finalResponse(sse);
    expect(final).toMatchObject({
      status: 'completed',
      service_tier: 'default',
      usage: { input_tokens: 610, input_tokens_details: { cached_tokens: 200 }, output_tokens: 420, output_tokens_details: { reasoning_tokens: 100 } },
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'Good morning.' }] }],
    });
    const events = (await decode(sse)).values;
    expect(finishReason(events, await toolCalls(sse))).toBe('stop');
  });

  test('the response id: the AI SDK reports the created one, accumulateResponse ends with the terminal one', async () => {
    const values = await all(fromResponsesSSE(sse).pipe(accumulateResponse()));
    expect(values[0]).toMatchObject({ id: 'resp_txt_1' });
    expect(values.at(-1)).toMatchObject({ id: 'resp_txt_2' });
  });

  test('text parts are keyed by output and content index, so the rotated item id makes one part, not two', async () => {
    const snaps = await all(fromResponsesSSE(sse).pipe(accumulateText()));
    expect(snaps.map((s) => [s.itemId, s.text, s.done])).toEqual([
      ['msg_txt_a', 'Good', false],
      ['msg_txt_a', 'Good morning.', false],
      ['msg_txt_b', 'Good morning.', true],
    ]);
  });
});

describe('incomplete', () => {
  // As in "should send finish reason for incomplete response": the closing events disagree with each
  // other (the `.done` text says more than the deltas, the part, the item and the response).
  const sse = body(
    created('resp_inc_1'),
    { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_inc_a', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
    { type: 'response.content_part.added', item_id: 'msg_inc_a', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', item_id: 'msg_inc_a', output_index: 0, content_index: 0, delta: 'Once upon' },
    { type: 'response.output_text.done', item_id: 'msg_inc_b', output_index: 0, content_index: 0, text: 'Once upon!' },
    { type: 'response.content_part.done', item_id: 'msg_inc_b', output_index: 0, content_index: 0, part: { type: 'output_text', text: 'Once upon', annotations: [] } },
    { type: 'response.output_item.done', output_index: 0, item: message('msg_inc_b', 'Once upon', 'incomplete') },
    {
      type: 'response.incomplete',
      response: response('resp_inc_9', {
        status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 16,
        output: [message('msg_inc_c', 'Once upon', 'incomplete')], usage: usage(0, 0, 0, 0),
      }),
    },
  );

  test('response.incomplete completes the stream; finish reason length; usage zero', async () => {
    const out = await decode(sse);
    expect(out.completed).toBe(true);
    expect(finishReason(out.values, await toolCalls(sse))).toBe('length');
    expect(await finalResponse(sse)).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      output: [{ id: 'msg_inc_c', content: [{ text: 'Once upon' }] }],
    });
  });

  // The closing events disagree (`output_text.done`: "Once upon!", the closed item and the terminal response:
  // "Once upon"): the later, authoritative closings correct the text, so outputText ends where
  // accumulateResponse does, on "Once upon", as the AI SDK reports (was a bug: the first closing stood).
  test('outputText ends on the text the terminal response ends on', async () => {
    const text = await finalText(sse);
    const final = (await finalResponse(sse)) as { output: Array<{ content: Array<{ text: string }> }> };
    expect(text).toBe(final.output[0]!.content[0]!.text);
    expect(text).toBe('Once upon');
  });
});

describe('function calls', () => {
  // As in "should send streaming tool calls": the call_id of output_item.added is provisional; the one of
  // output_item.done is the call's; the terminal response carries yet another for the first call.
  const sse = body(
    created('resp_fc'),
    inProgress('resp_fc'),
    { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', id: 'fc_here', call_id: 'call_here_provisional', name: 'currentPlace', arguments: '', status: 'completed' } },
    { type: 'response.function_call_arguments.delta', item_id: 'fc_here', output_index: 0, delta: '{}' },
    { type: 'response.function_call_arguments.done', item_id: 'fc_here', output_index: 0, arguments: '{}' },
    { type: 'response.output_item.done', output_index: 0, item: { type: 'function_call', id: 'fc_here', call_id: 'call_here', name: 'currentPlace', arguments: '{}', status: 'completed' } },
    { type: 'response.output_item.added', output_index: 1, item: { type: 'function_call', id: 'fc_wx', call_id: 'call_wx_provisional', name: 'forecast', arguments: '', status: 'in_progress' } },
    ...['{', '"city', '":', '"Oslo', '"}'].map((delta) => ({ type: 'response.function_call_arguments.delta', item_id: 'fc_wx', output_index: 1, delta })),
    { type: 'response.function_call_arguments.done', item_id: 'fc_wx', output_index: 1, arguments: '{"city":"Oslo"}' },
    { type: 'response.output_item.done', output_index: 1, item: { type: 'function_call', id: 'fc_wx', call_id: 'call_wx', name: 'forecast', arguments: '{"city":"Oslo"}', status: 'completed' } },
    completed('resp_fc', [
      { type: 'function_call', id: 'fc_here', call_id: 'call_here_terminal', name: 'currentPlace', arguments: '{}', status: 'completed' },
      { type: 'function_call', id: 'fc_wx', call_id: 'call_wx', name: 'forecast', arguments: '{"city":"Oslo"}', status: 'completed' },
    ], usage(0, 0, 0, 0)),
  );

  test('one call per function call, with the call_id of output_item.done and parsed arguments', async () => {
    const calls = await toolCalls(sse);
    expect(calls.map((c) => ({ type: c.type, state: c.state, outputIndex: c.outputIndex, itemId: c.itemId, callId: (c as { callId: string }).callId }))).toEqual([
      { type: 'function_call', state: 'complete', outputIndex: 0, itemId: 'fc_here', callId: 'call_here' },
      { type: 'function_call', state: 'complete', outputIndex: 1, itemId: 'fc_wx', callId: 'call_wx' },
    ]);
    expect(calls.map((c) => (c as { name: string }).name)).toEqual(['currentPlace', 'forecast']);
    expect(calls.map((c) => (c as { parsed?: unknown }).parsed)).toEqual([{ ok: true, value: {} }, { ok: true, value: { city: 'Oslo' } }]);
  });

  test('partial arguments grow as the deltas say (the AI SDK tool-input-delta stream)', async () => {
    const partial = (await all(fromResponsesSSE(sse).pipe(collectToolCalls({ partial: true }))))
      .filter((c) => c.state === 'partial' && c.outputIndex === 1)
      .map((c) => (c as { arguments: string }).arguments);
    expect(partial.at(-1)).toBe('{"city":"Oslo"}');
    expect(partial).toContain('{"city');
  });

  test('finish reason tool-calls; the assembled response has the terminal items', async () => {
    const out = await decode(sse);
    expect(finishReason(out.values, await toolCalls(sse))).toBe('tool-calls');
    expect(await finalResponse(sse)).toMatchObject({
      status: 'completed',
      output: [{ id: 'fc_here', call_id: 'call_here_terminal' }, { id: 'fc_wx', arguments: '{"city":"Oslo"}' }],
    });
  });
});

describe('reasoning summaries', () => {
  // As in "should handle reasoning with summary" / "encrypted content with summary", in the full shape the
  // API sends (with the parts and output indices the AI SDK's hand-trimmed chunks leave out).
  const summary = [
    { type: 'summary_text', text: '**Weighing options**\n\nThe user asks which bridge is older.' },
    { type: 'summary_text', text: '**Checking dates**\n\nOne opened in 1894, the other in 1932.' },
  ];
  const reasoningDone = { id: 'rs_sum', type: 'reasoning', summary, encrypted_content: 'opaque-blob-1' };
  const sse = body(
    created('resp_rs'),
    { type: 'response.output_item.added', output_index: 0, item: { id: 'rs_sum', type: 'reasoning', summary: [], encrypted_content: null } },
    ...summary.flatMap((part, i) => {
      const [a, b] = [part.text.slice(0, 20), part.text.slice(20)];
      return [
        { type: 'response.reasoning_summary_part.added', item_id: 'rs_sum', output_index: 0, summary_index: i, part: { type: 'summary_text', text: '' } },
        { type: 'response.reasoning_summary_text.delta', item_id: 'rs_sum', output_index: 0, summary_index: i, delta: a },
        { type: 'response.reasoning_summary_text.delta', item_id: 'rs_sum', output_index: 0, summary_index: i, delta: b },
        { type: 'response.reasoning_summary_text.done', item_id: 'rs_sum', output_index: 0, summary_index: i, text: part.text },
        { type: 'response.reasoning_summary_part.done', item_id: 'rs_sum', output_index: 0, summary_index: i, part },
      ];
    }),
    { type: 'response.output_item.done', output_index: 0, item: reasoningDone },
    { type: 'response.output_item.added', output_index: 1, item: { id: 'msg_rs', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
    { type: 'response.content_part.added', item_id: 'msg_rs', output_index: 1, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', item_id: 'msg_rs', output_index: 1, content_index: 0, delta: 'The 1894 one.' },
    { type: 'response.output_text.done', item_id: 'msg_rs', output_index: 1, content_index: 0, text: 'The 1894 one.' },
    { type: 'response.output_item.done', output_index: 1, item: message('msg_rs', 'The 1894 one.') },
    completed('resp_rs', [reasoningDone, message('msg_rs', 'The 1894 one.')], usage(34, 0, 538, 512)),
  );

  test('each summary part streams and closes on its own (the AI SDK reasoning-start/-delta/-end per part)', async () => {
    const snaps = await all(fromResponsesSSE(sse).pipe(accumulateText({ kind: 'reasoning_summary_text' })));
    expect(snaps.filter((s) => s.done).map((s) => [s.outputIndex, s.contentIndex, s.text])).toEqual([
      [0, 0, summary[0]!.text],
      [0, 1, summary[1]!.text],
    ]);
    expect(snaps.filter((s) => !s.done).map((s) => s.delta).join('')).toBe(summary[0]!.text + summary[1]!.text);
  });

  test('the answer excludes the reasoning; the response keeps the summary and the encrypted content', async () => {
    expect(await finalText(sse)).toBe('The 1894 one.');
    expect(await finalResponse(sse)).toMatchObject({
      usage: { output_tokens_details: { reasoning_tokens: 512 } },
      output: [{ type: 'reasoning', summary, encrypted_content: 'opaque-blob-1' }, { type: 'message' }],
    });
  });

  // The AI SDK's chunks leave required fields out (a reasoning item with no summary, summary parts with no
  // `part` and no `output_index`, a message item with only id and type, text deltas with neither index).
  // openai-rx validates documented events by default and parts are keyed by index, so these are decode
  // errors naming the missing field (deliberately stricter); `validate: 'off'` lets them through.
  test.each<[string, Json, string]>([
    ['a summary part without `part` or `output_index`', { type: 'response.reasoning_summary_part.added', item_id: 'rs_x', summary_index: 0 }, 'output_index'],
    ['a summary delta without `output_index`', { type: 'response.reasoning_summary_text.delta', item_id: 'rs_x', summary_index: 0, delta: 'hm' }, 'output_index'],
    ['a message item with only id and type', { type: 'response.output_item.added', output_index: 1, item: { id: 'msg_x', type: 'message' } }, 'item.role'],
    ['a text delta without indices', { type: 'response.output_text.delta', item_id: 'msg_x', delta: 'answer' }, 'output_index'],
  ])('trimmed shape: %s is a DecodeError naming the field', async (_name, event, path) => {
    const out = await decode(body(created('resp_trim'), event));
    expect(out.values).toHaveLength(1);
    expect(out.error).toBeInstanceOf(DecodeError);
    expect((out.error as DecodeError).path).toBe(path);
    const off = await decode(body(created('resp_trim'), event, completed('resp_trim', [], usage(1, 0, 1, 0))), { validate: 'off' });
    expect(off.completed).toBe(true);
    expect(off.values[1]).toEqual(event);
  });
});

describe('ids that change on every event (a captured third-party provider)', () => {
  // As in "should correlate rotated item ids by output index" (a GitHub Copilot capture): every lifecycle
  // event and every item event carries a fresh id.
  let n = 0;
  const fresh = (): string => `rot_${++n}`;
  const sse = body(
    created(fresh()),
    inProgress(fresh()),
    { type: 'response.output_item.added', output_index: 0, item: { id: fresh(), type: 'reasoning', summary: [], content: [], encrypted_content: null } },
    { type: 'response.reasoning_summary_part.added', item_id: fresh(), output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } },
    { type: 'response.reasoning_summary_text.delta', item_id: fresh(), output_index: 0, summary_index: 0, delta: '**Counting**' },
    { type: 'response.reasoning_summary_text.done', item_id: fresh(), output_index: 0, summary_index: 0, text: '**Counting**' },
    { type: 'response.reasoning_summary_part.done', item_id: fresh(), output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '**Counting**' } },
    { type: 'response.output_item.done', output_index: 0, item: { id: fresh(), type: 'reasoning', summary: [{ type: 'summary_text', text: '**Counting**' }], content: [], encrypted_content: null } },
    { type: 'response.output_item.added', output_index: 1, item: { id: fresh(), type: 'message', status: 'in_progress', role: 'assistant', content: [], phase: 'final_answer' } },
    { type: 'response.content_part.added', item_id: fresh(), output_index: 1, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } },
    ...['Two', ' letters', ' **l**', ' in', ' “hello”.'].map((delta) => ({
      type: 'response.output_text.delta', item_id: fresh(), output_index: 1, content_index: 0, delta, logprobs: [],
    })),
    { type: 'response.output_text.done', item_id: fresh(), output_index: 1, content_index: 0, text: 'Two letters **l** in “hello”.', logprobs: [] },
    { type: 'response.output_item.done', output_index: 1, item: { ...message(fresh(), 'Two letters **l** in “hello”.'), phase: 'final_answer' } },
    completed(fresh(), [
      { id: fresh(), type: 'reasoning', summary: [{ type: 'summary_text', text: '**Counting**' }], content: [], encrypted_content: null },
      message(fresh(), 'Two letters **l** in “hello”.'),
    ], usage(19, 0, 105, 44), { copilot_usage: { token_details: [] } }),
  );

  test('one text part and one summary part, whatever the ids; the whole text', async () => {
    expect((await decode(sse)).completed).toBe(true);
    expect(await finalText(sse)).toBe('Two letters **l** in “hello”.');
    const snaps = await all(fromResponsesSSE(sse).pipe(accumulateText({ kind: 'all' })));
    expect(snaps.filter((s) => s.done).map((s) => [s.kind, s.outputIndex, s.contentIndex])).toEqual([
      ['reasoning_summary_text', 0, 0],
      ['output_text', 1, 0],
    ]);
  });

  test('the assembled response has two items, not one per id', async () => {
    const final = (await finalResponse(sse)) as { output: Json[]; usage: Json };
    expect(final.output.map((i) => i['type'])).toEqual(['reasoning', 'message']);
    expect(final.usage).toMatchObject({ total_tokens: 124 });
  });
});

describe('annotations', () => {
  const text = 'Both the page and the file agree.';
  const url = { type: 'url_citation', url: 'https://docs.example.org/bridges', title: 'Bridges', start_index: 0, end_index: 8 };
  const file = { type: 'file_citation', index: 17, file_id: 'file-aa11', filename: 'bridges.md' };
  const fileBare = { type: 'file_citation', file_id: 'file-bb22' };
  const container = { type: 'container_file_citation', container_id: 'cntr_1', file_id: 'cfile_1', filename: 'plot.png', start_index: 5, end_index: 12 };
  const path = { type: 'file_path', file_id: 'cfile_2', index: 0 };
  const annotations = [url, file, fileBare, container, path];
  const added = annotations.map((annotation, i) => ({
    type: 'response.output_text.annotation.added', item_id: 'msg_ann', output_index: 0, content_index: 0, annotation_index: i, annotation,
  }));

  // As in "should handle both url_citation and file_citation annotations": no response.created, and a
  // `data: [DONE]` after response.completed.
  test('every kind is kept in the part, as the closing part lists them; the text is unaffected', async () => {
    const sse = body(
      { type: 'response.content_part.added', item_id: 'msg_ann', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
      ...added,
      { type: 'response.output_text.delta', item_id: 'msg_ann', output_index: 0, content_index: 0, delta: text },
      { type: 'response.content_part.done', item_id: 'msg_ann', output_index: 0, content_index: 0, part: { type: 'output_text', text, annotations } },
      { type: 'response.output_item.done', output_index: 0, item: message('msg_ann', text, 'completed', annotations) },
      completed('resp_ann', [message('msg_ann', text, 'completed', annotations)], usage(100, 0, 20, 0)),
    ) + 'data: [DONE]\n\n';
    const out = await decode(sse);
    expect(out.completed).toBe(true);
    expect(out.values.filter((e) => e.type === 'response.output_text.annotation.added').map((e) => (e as { annotation: Json }).annotation)).toEqual(annotations);
    expect(await finalText(sse)).toBe(text);
    expect(await finalResponse(sse)).toMatchObject({ output: [{ content: [{ text, annotations }] }] });
  });

  test('annotation.added events alone fill the annotations when no closing event lists them', async () => {
    const sse = body(
      created('resp_ann2'),
      { type: 'response.output_item.added', output_index: 0, item: { id: 'msg_ann', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
      { type: 'response.content_part.added', item_id: 'msg_ann', output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
      { type: 'response.output_text.delta', item_id: 'msg_ann', output_index: 0, content_index: 0, delta: text },
      ...added,
      completed('resp_ann2', [], usage(100, 0, 20, 0)),
    );
    expect(await finalResponse(sse)).toMatchObject({ output: [{ id: 'msg_ann', content: [{ text, annotations }] }] });
  });
});

describe('hosted tools (provider-executed in the AI SDK)', () => {
  const msg = (id: string, oi: number, text: string, annotations: Json[] = []): Json[] => [
    { type: 'response.output_item.added', output_index: oi, item: { id, type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
    { type: 'response.content_part.added', item_id: id, output_index: oi, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
    { type: 'response.output_text.delta', item_id: id, output_index: oi, content_index: 0, delta: text },
    ...annotations.map((annotation, i) => ({ type: 'response.output_text.annotation.added', item_id: id, output_index: oi, content_index: 0, annotation_index: i, annotation })),
    { type: 'response.output_text.done', item_id: id, output_index: oi, content_index: 0, text },
    { type: 'response.output_item.done', output_index: oi, item: message(id, text, 'completed', annotations) },
  ];
  const progress = (kind: string, id: string, oi: number, steps: string[]): Json[] =>
    steps.map((s) => ({ type: `response.${kind}.${s}`, item_id: id, output_index: oi }));

  const webDone = { id: 'ws_1', type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'oldest bridge in town', sources: [{ type: 'url', url: 'https://news.example.org/a' }] } };
  const webNoAction = { id: 'ws_2', type: 'web_search_call', status: 'completed' };
  const web = body(
    created('resp_ws', { tools: [{ type: 'web_search' }] }),
    { type: 'response.output_item.added', output_index: 0, item: { id: 'ws_1', type: 'web_search_call', status: 'in_progress', action: { type: 'search' } } },
    ...progress('web_search_call', 'ws_1', 0, ['in_progress', 'searching', 'completed']),
    { type: 'response.output_item.done', output_index: 0, item: webDone },
    { type: 'response.output_item.added', output_index: 1, item: { id: 'ws_2', type: 'web_search_call', status: 'in_progress' } },
    ...progress('web_search_call', 'ws_2', 1, ['in_progress', 'searching', 'completed']),
    { type: 'response.output_item.done', output_index: 1, item: webNoAction },
    ...msg('msg_ws', 2, 'It opened in 1894.', [{ type: 'url_citation', url: 'https://news.example.org/a', title: 'A', start_index: 0, end_index: 17 }]),
    completed('resp_ws', [webDone, webNoAction, message('msg_ws', 'It opened in 1894.', 'completed', [{ type: 'url_citation', url: 'https://news.example.org/a', title: 'A', start_index: 0, end_index: 17 }])], usage(3000, 0, 60, 0)),
  );

  test('web search, with and without an action: hosted calls only when asked for; the answer; finish reason stop', async () => {
    expect(await toolCalls(web)).toEqual([]);
    const hosted = await toolCalls(web, true);
    expect(hosted.map((c) => [c.type, c.itemId, c.state, c.status])).toEqual([
      ['web_search_call', 'ws_1', 'complete', 'completed'],
      ['web_search_call', 'ws_2', 'complete', 'completed'],
    ]);
    expect(hosted[0]!.item).toMatchObject({ action: { type: 'search', query: 'oldest bridge in town' } });
    expect(await finalText(web)).toBe('It opened in 1894.');
    expect(finishReason((await decode(web)).values, await toolCalls(web))).toBe('stop');
  });

  test('file search, with results included', async () => {
    const done = {
      id: 'fs_1', type: 'file_search_call', status: 'completed', queries: ['what is an embedding'],
      results: [{ file_id: 'file-cc33', filename: 'glossary.pdf', score: 0.91, text: 'An embedding is…', attributes: {} }],
    };
    const sse = body(
      created('resp_fs'),
      { type: 'response.output_item.added', output_index: 0, item: { id: 'fs_1', type: 'file_search_call', status: 'in_progress', queries: [], results: null } },
      ...progress('file_search_call', 'fs_1', 0, ['in_progress', 'searching', 'completed']),
      { type: 'response.output_item.done', output_index: 0, item: done },
      ...msg('msg_fs', 1, 'A vector for meaning.', [{ type: 'file_citation', index: 21, file_id: 'file-cc33', filename: 'glossary.pdf' }]),
      completed('resp_fs', [done, message('msg_fs', 'A vector for meaning.')], usage(4000, 0, 50, 0)),
    );
    const [call] = await toolCalls(sse, true);
    expect(call).toMatchObject({ type: 'file_search_call', state: 'complete', item: { queries: ['what is an embedding'], results: [{ file_id: 'file-cc33', score: 0.91 }] } });
    expect(await finalText(sse)).toBe('A vector for meaning.');
  });

  test('code interpreter: code streamed, outputs on the closed item, a container file cited', async () => {
    const code = 'import random\nprint(sum(random.randint(1, 6) for _ in range(2)))';
    const done = { id: 'ci_1', type: 'code_interpreter_call', status: 'completed', code, container_id: 'cntr_1', outputs: [{ type: 'logs', logs: '7\n' }] };
    const cited = { type: 'container_file_citation', container_id: 'cntr_1', file_id: 'cfile_9', filename: 'rolls.csv', start_index: 0, end_index: 9 };
    const sse = body(
      created('resp_ci'),
      { type: 'response.output_item.added', output_index: 0, item: { id: 'ci_1', type: 'code_interpreter_call', status: 'in_progress', code: '', container_id: 'cntr_1', outputs: null } },
      { type: 'response.code_interpreter_call.in_progress', item_id: 'ci_1', output_index: 0 },
      { type: 'response.code_interpreter_call_code.delta', item_id: 'ci_1', output_index: 0, delta: code.slice(0, 14) },
      { type: 'response.code_interpreter_call_code.delta', item_id: 'ci_1', output_index: 0, delta: code.slice(14) },
      { type: 'response.code_interpreter_call_code.done', item_id: 'ci_1', output_index: 0, code },
      { type: 'response.code_interpreter_call.interpreting', item_id: 'ci_1', output_index: 0 },
      { type: 'response.code_interpreter_call.completed', item_id: 'ci_1', output_index: 0 },
      { type: 'response.output_item.done', output_index: 0, item: done },
      ...msg('msg_ci', 1, 'The dice rolled 7.', [cited]),
      completed('resp_ci', [done, message('msg_ci', 'The dice rolled 7.', 'completed', [cited])], usage(1000, 0, 80, 0)),
    );
    const [call] = await toolCalls(sse, true);
    expect(call).toMatchObject({ type: 'code_interpreter_call', state: 'complete', item: { code, outputs: [{ type: 'logs', logs: '7\n' }] } });
    expect(await finalResponse(sse)).toMatchObject({ output: [{ code }, { content: [{ text: 'The dice rolled 7.', annotations: [cited] }] }] });
  });

  test('image generation: a partial image, then the result on the closed item', async () => {
    const done = { id: 'ig_1', type: 'image_generation_call', status: 'completed', result: 'iVBORw0KGgoFINAL', output_format: 'png', size: '1024x1024' };
    const sse = body(
      created('resp_ig'),
      { type: 'response.output_item.added', output_index: 0, item: { id: 'ig_1', type: 'image_generation_call', status: 'in_progress' } },
      { type: 'response.image_generation_call.in_progress', item_id: 'ig_1', output_index: 0 },
      { type: 'response.image_generation_call.generating', item_id: 'ig_1', output_index: 0 },
      { type: 'response.image_generation_call.partial_image', item_id: 'ig_1', output_index: 0, partial_image_index: 0, partial_image_b64: 'iVBORw0KGgoPART', output_format: 'png', size: '1024x1024' },
      { type: 'response.output_item.done', output_index: 0, item: done },
      completed('resp_ig', [done], usage(2000, 0, 1, 0)),
    );
    const out = await decode(sse);
    expect(out.values.find((e) => e.type === 'response.image_generation_call.partial_image')).toMatchObject({ partial_image_b64: 'iVBORw0KGgoPART' });
    const [call] = await toolCalls(sse, true);
    expect(call).toMatchObject({ type: 'image_generation_call', state: 'complete', item: { result: 'iVBORw0KGgoFINAL' } });
    expect(await finalText(sse)).toBe('');
  });
});

describe('errors', () => {
  test('an error event (nested error object) before any output, followed by response.failed', async () => {
    // As in the AI SDK's openai-error fixture: it reads the message and maps the code to 429. openai-rx ends
    // at the error event (the response.failed after it is not read) with a ResponseStreamError that is not
    // retryable: the AI SDK's isRetryable means "send the request again", ours means "resume this stream",
    // which cannot help a response that failed (deliberate).
    const reason = 'You exceeded your current quota (test account).';
    const sse = body(
      { ...created('resp_q'), sequence_number: 0 },
      { ...inProgress('resp_q'), sequence_number: 1 },
      { type: 'error', sequence_number: 2, error: { type: 'insufficient_quota', code: 'insufficient_quota', message: reason, param: null } },
      { type: 'response.failed', sequence_number: 3, response: response('resp_q', { status: 'failed', error: { code: 'insufficient_quota', message: reason } }) },
    );
    const out = await decode(sse);
    expect(out.values.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', 'error']);
    expect(out.error).toBeInstanceOf(ResponseStreamError);
    expect(out.error).toMatchObject({ eventType: 'error', errorCode: 'insufficient_quota', param: null, sequenceNumber: 2, responseId: 'resp_q', retryable: false });
    expect((out.error as Error).message).toBe(`error: insufficient_quota: ${reason}`);
  });

  // As in the AI SDK's openai-error-null-code fixture. A provider error without a code takes the error's
  // type as its code (lib/decode/provider-error.ts), and so it does in the `{"error": {…}}` shape:
  test('a bare {"error": {…}} whose code is null: the error type stands in for the code', async () => {
    const out = await decode(body({ error: { type: 'server_error', code: null, message: 'Something went wrong here.', param: null } }));
    expect(out.error).toMatchObject({ name: 'ResponseStreamError', eventType: 'error', errorCode: 'server_error' });
  });

  // The documented `error` event with the details nested under `error` and `code: null`: the error's type
  // stands in for the code, as in the other shapes (was a bug: errorCode null).
  test('an error event whose nested code is null: the error type stands in for it, as in the other shapes', async () => {
    const out = await decode(body({ type: 'error', error: { type: 'server_error', code: null, message: 'Something went wrong here.', param: null }, sequence_number: 2 }));
    expect(out.error).toMatchObject({ name: 'ResponseStreamError', eventType: 'error', errorCode: 'server_error', sequenceNumber: 2 });
    expect((out.error as Error).message).toBe('error: server_error: Something went wrong here.');
  });

  test('a documented flat error event after a minimal response.created', async () => {
    const out = await decode(body(
      { type: 'response.created', sequence_number: 0, response: { id: 'resp_min', created_at: 1767225600, model: 'gpt-test', service_tier: null } },
      { type: 'error', sequence_number: 1, code: 'rate_limit_exceeded', message: 'Rate limit reached', param: null },
    ));
    expect(out.values).toHaveLength(2);
    expect(out.error).toMatchObject({ name: 'ResponseStreamError', errorCode: 'rate_limit_exceeded', sequenceNumber: 1, responseId: 'resp_min' });
    expect((out.error as Error).message).toBe('error: rate_limit_exceeded: Rate limit reached');
  });

  test('response.failed with its message: emitted, then a ResponseStreamError; the assembled response shows the failure', async () => {
    const sse = body(
      { ...created('resp_f'), sequence_number: 0 },
      { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { id: 'msg_f', type: 'message', status: 'in_progress', role: 'assistant', content: [] } },
      { type: 'response.failed', sequence_number: 2, response: response('resp_f', { status: 'failed', error: { code: 'server_error', message: 'The response failed.' }, incomplete_details: { reason: 'max_output_tokens' } }) },
    );
    const out = await decode(sse);
    expect(out.values.at(-1)).toMatchObject({ type: 'response.failed' });
    expect(out.error).toMatchObject({ name: 'ResponseStreamError', eventType: 'response.failed', errorCode: 'server_error', responseId: 'resp_f', sequenceNumber: 2 });
    const states = await run(fromResponsesSSE(sse).pipe(accumulateResponse()));
    expect(states.values.at(-1)).toMatchObject({ status: 'failed', error: { code: 'server_error', message: 'The response failed.' }, incomplete_details: { reason: 'max_output_tokens' } });
    expect(states.error).toBeInstanceOf(ResponseStreamError);
  });

  test('response.failed whose response has no id (the AI SDK trims it): a DecodeError by default, the failure itself with validate off', async () => {
    // Deliberately stricter: `response.id` is required by the codec, so the provider's message is lost under
    // the default validation; the AI SDK reports "it broke".
    const sse = body(
      { type: 'response.created', sequence_number: 0, response: { id: 'resp_noid', created_at: 1767225600, model: 'gpt-test', service_tier: null } },
      { type: 'response.failed', sequence_number: 1, response: { error: { code: 'server_error', message: 'it broke' }, incomplete_details: null, usage: null, service_tier: null } },
    );
    const strict = await decode(sse);
    expect(strict.error).toBeInstanceOf(DecodeError);
    expect(strict.error).toMatchObject({ eventType: 'response.failed', sequenceNumber: 1, path: 'response.id' });
    const off = await decode(sse, { validate: 'off' });
    expect(off.error).toMatchObject({ name: 'ResponseStreamError', eventType: 'response.failed', errorCode: 'server_error', responseId: 'resp_noid' });
    expect((off.error as Error).message).toBe('response.failed: server_error: it broke');
  });

  test('a Chat Completions stream sent to the Responses decoder is a DecodeError at `type`, not a silent stream', async () => {
    // The AI SDK answers with a message naming the wrong endpoint; openai-rx names the missing field.
    const out = await decode('data:{"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}\n\ndata: [DONE]\n\n');
    expect(out.values).toEqual([]);
    expect(out.error).toBeInstanceOf(DecodeError);
    expect((out.error as DecodeError).path).toBe('type');
  });
});
