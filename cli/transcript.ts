// The embedded default the demo serves: a short answer streamed word by word, as the Responses API does.

const ANSWER =
  'Reactive streams turn each server-sent event into a value you can map, filter and combine. ' +
  'openai-rx decodes every event, checks it against its schema, and hands you Observables you compose with pipe().';

/** SSE text of one complete response (`event:` + `data:` framing, sequence numbers from 0). */
export function demoTranscript(responseId = 'resp_demo_0001'): string {
  const msgId = 'msg_demo_0001';
  const base = { id: responseId, object: 'response', created_at: 1764400000, model: 'demo-model', output: [] as unknown[], usage: null };
  const words = ANSWER.split(/(?<= )/);
  const doneItem = { id: msgId, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: ANSWER, annotations: [] }] };
  const events: Array<Record<string, unknown>> = [
    { type: 'response.created', response: { ...base, status: 'in_progress' } },
    { type: 'response.in_progress', response: { ...base, status: 'in_progress' } },
    { type: 'response.output_item.added', output_index: 0, item: { ...doneItem, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', item_id: msgId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
    ...words.map((delta) => ({ type: 'response.output_text.delta', item_id: msgId, output_index: 0, content_index: 0, delta, logprobs: [] })),
    { type: 'response.output_text.done', item_id: msgId, output_index: 0, content_index: 0, text: ANSWER, logprobs: [] },
    { type: 'response.content_part.done', item_id: msgId, output_index: 0, content_index: 0, part: { type: 'output_text', text: ANSWER, annotations: [] } },
    { type: 'response.output_item.done', output_index: 0, item: doneItem },
    {
      type: 'response.completed',
      response: { ...base, status: 'completed', output: [doneItem], usage: { input_tokens: 12, output_tokens: words.length, total_tokens: 12 + words.length } },
    },
  ];
  return events.map((e, i) => `event: ${String(e['type'])}\ndata: ${JSON.stringify({ ...e, sequence_number: i })}\n\n`).join('');
}
