// What the loopback WebSocket server sends for a response: the generated text answer, frames naming their
// lane, and the `loopback_*` fault controls a request's metadata asks for.

/** A frame sent as raw bytes (to test how clients take bytes that are not UTF-8). */
export interface RawFrame {
  readonly bytes: Uint8Array;
  readonly binary: boolean;
}

export function resp(id: string, status: string, extra: Record<string, unknown>): Record<string, unknown> {
  return { id, object: 'response', created_at: 1758200000, status, model: 'loopback', output: [], usage: null, error: null, incomplete_details: null, ...extra };
}

/** A plain text response: created → in_progress → message → N deltas → done → completed. */
export function textEvents(id: string, deltas: number, extra: Record<string, unknown>): Array<Record<string, unknown>> {
  const item = `msg_${id}`;
  const text = Array.from({ length: deltas }, (_, i) => `d${i} `);
  const message = { id: item, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: text.join(''), annotations: [], logprobs: [] }] };
  const out: Array<Record<string, unknown>> = [
    { type: 'response.created', response: resp(id, 'in_progress', extra) },
    { type: 'response.in_progress', response: resp(id, 'in_progress', extra) },
    { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', item_id: item, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } },
    ...text.map((d) => ({ type: 'response.output_text.delta', item_id: item, output_index: 0, content_index: 0, delta: d, logprobs: [] })),
    { type: 'response.output_text.done', item_id: item, output_index: 0, content_index: 0, text: text.join(''), logprobs: [] },
    { type: 'response.content_part.done', item_id: item, output_index: 0, content_index: 0, part: message.content[0] },
    { type: 'response.output_item.done', output_index: 0, item: message },
    { type: 'response.completed', response: resp(id, 'completed', { ...extra, output: [message] }) },
  ];
  return out.map((e, i) => ({ ...e, sequence_number: i }));
}

export function frame(e: Record<string, unknown>, lane: string | undefined): string {
  return JSON.stringify(lane === undefined ? e : { ...e, stream_id: lane });
}

/** Applies the `loopback_*` fault controls of a request's metadata to its frames. */
export function withFaults(frames: string[], metadata: Record<string, unknown>): Array<string | RawFrame> {
  const out: Array<string | RawFrame> = [...frames];
  const delta = frames.findIndex((f) => f.startsWith('{"type":"response.output_text.delta"'));
  const big = Number(metadata['loopback_big_frame'] ?? 0);
  if (big > 0 && delta >= 0) {
    const e = JSON.parse(frames[delta]!) as Record<string, unknown>;
    out[delta] = JSON.stringify({ ...e, delta: `${String(e['delta'])}${'x'.repeat(big)}` });
  }
  const utf8 = metadata['loopback_invalid_utf8'];
  if ((utf8 === 'text' || utf8 === 'binary') && delta >= 0) {
    const [head, tail] = frames[delta]!.split('"delta":"');
    const enc = new TextEncoder();
    out[delta] = { bytes: new Uint8Array([...enc.encode(`${head}"delta":"`), 0xc3, 0x28, 0xff, ...enc.encode(tail ?? '')]), binary: utf8 === 'binary' };
  }
  const last = frames.length - 1;
  const terminal = frames[last];
  if (terminal === undefined) return out;
  const bad = metadata['loopback_bad_terminal'];
  // The loopback puts `stream_id` last, so a cut frame loses it; "untyped" keeps the lane and drops the type.
  if (bad === 'anonymous') out[last] = terminal.slice(0, terminal.indexOf('"response":') + 20);
  else if (bad === 'untyped') out[last] = `{"stream_id":${JSON.stringify(/"stream_id":"([^"]*)"/.exec(terminal)?.[1] ?? '')},"response":`;
  if (metadata['loopback_duplicate_terminal'] === 'true') out.push(out[last]!);
  return out;
}
