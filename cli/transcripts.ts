// Transcripts embedded in the package (test/fixtures is not shipped): what the offline demo and
// `openai-rx serve` answer with. Each is Responses SSE text in the shape the API records.
import { responsesTranscript, textTranscript } from '../testing/transcripts.js';

export const DEMO_ANSWER =
  'Reactive streams turn each server-sent event into a value you can map, filter and combine. ' +
  'openai-rx decodes every event, checks it against its schema, and hands you Observables you compose with pipe().';

const words = (text: string): string[] => text.split(/(?<= )/);

/** One assistant message, streamed word by word. */
export function demoText(responseId = 'resp_demo_text'): string {
  return textTranscript({ responseId, model: 'demo-model', deltas: words(DEMO_ANSWER) });
}

const BACKGROUND_ANSWER =
  'A background response keeps running on the server while the client is away. When the connection ' +
  'drops, resumeFrom asks for the events after the last sequence number it delivered, so the text ' +
  'continues exactly where it stopped: no gap, no duplicate.';

/** A background response (`response.queued` first), long enough to be cut in the middle. */
export function demoBackground(responseId = 'resp_demo_background'): string {
  return textTranscript({ responseId, model: 'demo-model', deltas: words(BACKGROUND_ANSWER), background: true });
}

export interface DemoCall {
  readonly name: string;
  readonly arguments: string;
}

export const DEMO_CALLS: readonly DemoCall[] = [
  { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
  { name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
];

/** Two parallel function calls, their arguments streamed in small pieces, as the API sends them. */
export function demoToolCalls(responseId = 'resp_demo_tools'): string {
  const response = (status: string, output: unknown[], usage: unknown = null) => ({
    id: responseId, object: 'response', created_at: 1764400000, status, model: 'demo-model', output, usage,
    error: null, incomplete_details: null, previous_response_id: null, parallel_tool_calls: true,
  });
  const events: Array<Record<string, unknown> & { type: string }> = [];
  const push = (e: Record<string, unknown> & { type: string }) => events.push({ ...e, sequence_number: events.length });
  push({ type: 'response.created', response: response('in_progress', []) });
  push({ type: 'response.in_progress', response: response('in_progress', []) });
  const done: unknown[] = [];
  DEMO_CALLS.forEach((call, i) => {
    const item = { id: `fc_demo_${i}`, type: 'function_call', status: 'in_progress', arguments: '', call_id: `call_demo_${i}`, name: call.name };
    push({ type: 'response.output_item.added', output_index: i, item });
    for (const piece of call.arguments.match(/.{1,6}/g) ?? []) {
      push({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: i, delta: piece });
    }
    push({ type: 'response.function_call_arguments.done', item_id: item.id, output_index: i, name: call.name, arguments: call.arguments });
    const closed = { ...item, status: 'completed', arguments: call.arguments };
    push({ type: 'response.output_item.done', output_index: i, item: closed });
    done.push(closed);
  });
  push({
    type: 'response.completed',
    response: response('completed', done, {
      input_tokens: 42, input_tokens_details: { cached_tokens: 0 }, output_tokens: 31,
      output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 73,
    }),
  });
  return responsesTranscript(events);
}

/** The final answer after the tool outputs went back (`previous_response_id` set by the caller). */
export function demoToolAnswer(responseId = 'resp_demo_tool_answer'): string {
  return textTranscript({ responseId, model: 'demo-model', deltas: words('It is 18 °C in Paris, and the local time is 14:05.') });
}

/** The structured answer of the structured-output recipe: a forecast card, as a strict model writes it. */
export const DEMO_FORECAST = {
  city: 'Paris',
  summary: 'Sunny, then rain on Sunday',
  days: [
    { day: 'Friday', high: 21, low: 12.5, conditions: 'sunny' },
    { day: 'Saturday', high: 19, low: 11, conditions: 'cloudy' },
    { day: 'Sunday', high: 16, low: 10, conditions: 'rain' },
  ],
  alert: null,
} as const;

/** The forecast's JSON in pieces of up to 7 characters, cut anywhere (in strings, numbers, between keys) as tokens are. */
export function demoStructured(responseId = 'resp_demo_structured'): string {
  const json = JSON.stringify(DEMO_FORECAST);
  const deltas: string[] = [];
  for (let i = 0, n = 0; i < json.length; i += 3 + (n++ % 5)) deltas.push(json.slice(i, i + 3 + (n % 5)));
  return textTranscript({ responseId, model: 'demo-model', deltas });
}

/** The embedded transcripts by name, as `openai-rx serve` and the demo serve them (the name is the `model`). */
export function embeddedTranscripts(): Record<string, string> {
  return {
    'demo-text': demoText(),
    'demo-tools': demoToolCalls(),
    'demo-tool-answer': demoToolAnswer(),
    'demo-background': demoBackground(),
  };
}
