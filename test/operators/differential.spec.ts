// Differential test: our operators against the official `openai` SDK's own Responses accumulator
// (`accumulateResponse` from `openai/lib/responses/ResponseAccumulator`, the public helper its
// ResponseStream is built on), fed the same events of every transcript.
import { accumulateResponse as sdkAccumulate } from 'openai/lib/responses/ResponseAccumulator';
import type { Response as SdkResponse, ResponseStreamEvent as SdkEvent } from 'openai/resources/responses/responses';
import { lastValueFrom, toArray } from 'rxjs';
import { RESPONSE_STREAM_EVENT_TYPES, fromResponsesSSE, type ResponseStreamEvent } from '../../index';
import { accumulateText, collectToolCalls, outputText, type ToolCall } from '../../operators/index';
import { fixture, payloads, responsesFixtures } from '../helpers/fixtures';
import { responsesEnding, valuesToEnd } from '../helpers/endings';

type Obj = Record<string, unknown>;
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);
const KNOWN = new Set<string>(RESPONSE_STREAM_EVENT_TYPES);
const TOOL_TYPES = new Set(['function_call', 'custom_tool_call', 'mcp_call', 'mcp_approval_request', 'computer_call', 'local_shell_call', 'shell_call', 'apply_patch_call']);

/**
 * The SDK accepts less than the wire allows; these rewrites only make it accept the transcript, they
 * never change text: unknown event types are dropped (ours ignore them), a rotated `item_id` (and a
 * closed item's rotated `id`) is set back to the id its `output_item.added` had (ours key by index), and a stream resumed at `response.in_progress` gets the
 * `response.created` the SDK insists on.
 */
function forSdk(events: Obj[]): Obj[] {
  const ids = new Map<number, unknown>();
  const out: Obj[] = [];
  for (const e of events) {
    const type = e['type'] as string;
    if (!KNOWN.has(type)) continue;
    if (out.length === 0 && type !== 'response.created' && 'response' in e) out.push({ ...e, type: 'response.created' });
    if (type === 'response.output_item.added') ids.set(e['output_index'] as number, (e['item'] as Obj)['id']);
    if (type === 'response.output_item.done' && ids.has(e['output_index'] as number)) out.push({ ...e, item: { ...(e['item'] as Obj), id: ids.get(e['output_index'] as number) } });
    else if ('item_id' in e && typeof e['output_index'] === 'number' && ids.has(e['output_index'])) out.push({ ...e, item_id: ids.get(e['output_index']) });
    else out.push(e);
  }
  return out;
}

/** The SDK's assembled response just before the terminal event (its accumulated state), and its final one. */
function sdkRun(events: Obj[]): { assembled: SdkResponse; final: SdkResponse } {
  let snap: SdkResponse | undefined;
  let assembled: SdkResponse | undefined;
  for (const e of forSdk(events)) {
    if (TERMINAL.has(e['type'] as string)) assembled ??= structuredClone(snap);
    if (e['type'] === 'error') break;
    snap = sdkAccumulate(e as unknown as SdkEvent, snap);
  }
  return { assembled: assembled ?? snap!, final: snap! };
}

function sdkTexts(r: SdkResponse): string[] {
  const out: string[] = [];
  r.output.forEach((item, oi) => {
    const i = item as unknown as { content?: Obj[]; summary?: Obj[]; type: string };
    if (i.type !== 'message' && i.type !== 'reasoning') return;
    (i.content ?? []).forEach((c, ci) => out.push(`${oi}:${ci}:${(c['type'] === 'refusal' ? 'refusal' : c['type']) as string}=${(c['text'] ?? c['refusal']) as string}`));
    (i.summary ?? []).forEach((c, si) => out.push(`${oi}:${si}:reasoning_summary_text=${c['text'] as string}`));
  });
  return out.sort();
}

function sdkCalls(r: SdkResponse): string[] {
  return r.output
    .map((item, oi) => ({ item: item as unknown as Obj, oi }))
    .filter(({ item }) => TOOL_TYPES.has(item['type'] as string) && item['status'] !== 'in_progress' && item['status'] !== 'incomplete')
    .map(({ item, oi }) => `${oi}:${item['type'] as string}:${(item['call_id'] ?? item['server_label'] ?? '') as string}:${(item['name'] ?? '') as string}:${(item['arguments'] ?? item['input'] ?? '') as string}`)
    .sort();
}

function ourCall(c: ToolCall): string {
  const who = 'callId' in c ? c.callId : 'serverLabel' in c ? c.serverLabel : '';
  const name = 'name' in c ? c.name : '';
  const args = 'arguments' in c ? c.arguments : 'input' in c ? c.input : '';
  return `${c.outputIndex}:${c.type}:${who}:${name}:${args}`;
}

const events$ = (name: string) => fromResponsesSSE(fixture(name));
/** Every value, once `o` ended as the transcript says (completion, or its ResponseStreamError). */
const collect = <T>(o: import('rxjs').Observable<T>, name: string): Promise<T[]> => valuesToEnd(o, responsesEnding(fixture(name)));

describe('differential against the openai SDK accumulator', () => {
  test('every Responses transcript is covered', () => {
    expect(responsesFixtures().length).toBeGreaterThan(0);
  });

  test.each(responsesFixtures())('%s: final texts equal the SDK’s', async (name) => {
    const { assembled } = sdkRun(payloads(fixture(name)));
    const snaps = await collect(events$(name).pipe(accumulateText({ kind: 'all' })), name);
    const ours = snaps.filter((s) => s.done).map((s) => `${s.outputIndex}:${s.contentIndex}:${s.kind}=${s.text}`).sort();
    expect(ours).toEqual(sdkTexts(assembled));
  });

  test.each(responsesFixtures())('%s: tool calls equal the SDK’s', async (name) => {
    const { assembled } = sdkRun(payloads(fixture(name)));
    const calls = await collect(events$(name).pipe(collectToolCalls()), name);
    expect(calls.map(ourCall).sort()).toEqual(sdkCalls(assembled));
    for (const c of calls) expect(c.state).toBe('complete');
  });

  test.each(responsesFixtures())('%s: outputText equals the SDK’s output_text', async (name) => {
    const { assembled } = sdkRun(payloads(fixture(name)));
    const values = await collect(events$(name).pipe(outputText()), name);
    expect(values.at(-1) ?? '').toBe(assembled.output_text ?? '');
  });

  test('the rewrites for the SDK do not touch text (they only drop unknown events and restore ids)', () => {
    for (const name of responsesFixtures()) {
      const ps = payloads(fixture(name));
      const deltas = (es: Obj[]) => es.filter((e) => KNOWN.has(e['type'] as string)).map((e) => e['delta'] ?? e['text'] ?? e['arguments'] ?? null);
      expect(deltas(forSdk(ps).filter((e, i) => i > 0 || e['type'] !== 'response.created' || ps[0]?.['type'] === 'response.created'))).toEqual(deltas(ps));
    }
  });

  test('our events are the SDK’s events: the decoder does not reshape what the SDK reads', async () => {
    const evs = (await lastValueFrom(events$('function-calls').pipe(toArray()))) as ResponseStreamEvent[];
    expect(evs).toEqual(payloads(fixture('function-calls')));
  });
});
