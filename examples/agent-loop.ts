// Recipe: an agent loop over SSE. Stream a turn, collect its complete function calls, run them, send
// their outputs back with `previous_response_id`, and repeat until the model answers without calls.
import { lastValueFrom, share, tap, toArray } from 'rxjs';
import { collectToolCalls, isEventType, outputText, streamResponse, type ClientConfig, type FunctionToolCall } from '../index.js';

export type Tools = Readonly<Record<string, (args: unknown) => unknown | Promise<unknown>>>;

export const TOOL_DEFINITIONS = [
  { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city', 'unit'] } },
  { type: 'function', name: 'get_time', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] } },
];

export const TOOLS: Tools = {
  get_weather: (a) => ({ city: (a as { city: string }).city, temperature: 18, unit: 'celsius' }),
  get_time: (a) => ({ timezone: (a as { timezone: string }).timezone, time: '14:05' }),
};

/** Runs one call; a bad argument string or an unknown tool becomes an output the model can read. */
export async function runCall(tools: Tools, call: FunctionToolCall): Promise<{ type: 'function_call_output'; call_id: string; output: string }> {
  const tool = tools[call.name];
  let output: unknown;
  if (!tool) output = { error: `no tool named ${call.name}` };
  else if (!call.parsed?.ok) output = { error: `arguments are not valid JSON: ${call.arguments}` };
  else output = await tool(call.parsed.value);
  return { type: 'function_call_output', call_id: call.callId, output: JSON.stringify(output) };
}

export interface AgentOptions extends ClientConfig {
  readonly model?: string;
  readonly prompt?: string;
  readonly tools?: Tools;
  /** Stop after this many turns (a model that keeps calling tools). Default 5. */
  readonly maxTurns?: number;
}

export async function main(options: AgentOptions = {}) {
  const tools = options.tools ?? TOOLS;
  const model = options.model ?? 'gpt-5.4-nano';
  let input: unknown = options.prompt ?? 'What is the weather and the time in Paris?';
  let previous: string | undefined;
  const turns: Array<{ responseId: string | undefined; calls: string[] }> = [];
  for (let turn = 0; turn < (options.maxTurns ?? 5); turn++) {
    let responseId: string | undefined;
    const events$ = streamResponse({ model, input, tools: TOOL_DEFINITIONS, ...(previous ? { previous_response_id: previous } : {}) }, options).pipe(
      tap((e) => {
        if (isEventType(e, 'response.created')) responseId = e.response.id;
      }),
      share(),
    );
    const [calls, text] = await Promise.all([
      lastValueFrom(events$.pipe(collectToolCalls(), toArray())),
      lastValueFrom(events$.pipe(outputText()), { defaultValue: '' }),
    ]);
    const functionCalls = calls.filter((c): c is FunctionToolCall => c.type === 'function_call');
    turns.push({ responseId, calls: functionCalls.map((c) => `${c.name}(${c.arguments})`) });
    if (functionCalls.length === 0) return { text, turns };
    // Independent calls run at once; their outputs go back in the next turn.
    input = await Promise.all(functionCalls.map((c) => runCall(tools, c)));
    previous = responseId;
  }
  throw new Error(`no answer after ${options.maxTurns ?? 5} turns`);
}
