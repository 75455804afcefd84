// Recipe: the same agent loop over one Responses WebSocket, several agents at once, one lane each.
// Each agent's turns stay in order on its lane (`stream_id`); the lanes run concurrently on one connection.
import { lastValueFrom, share, tap, toArray } from 'rxjs';
import { collectToolCalls, connectResponsesSocket, isEventType, outputText, type FunctionToolCall, type ResponsesSocket, type ResponsesSocketConfig } from '../index.js';
import { runCall, TOOL_DEFINITIONS, TOOLS, type Tools } from './agent-loop.js';

export async function agent(socket: ResponsesSocket, lane: string, prompt: string, model: string, tools: Tools = TOOLS) {
  let input: unknown = prompt;
  let previous: string | undefined;
  const calls: string[] = [];
  for (let turn = 0; turn < 5; turn++) {
    let responseId: string | undefined;
    const events$ = socket.response({ stream_id: lane, model, input, tools: TOOL_DEFINITIONS, ...(previous ? { previous_response_id: previous } : {}) }).pipe(
      tap((e) => {
        if (isEventType(e, 'response.created')) responseId = e.response.id;
      }),
      share(),
    );
    const [found, text] = await Promise.all([lastValueFrom(events$.pipe(collectToolCalls(), toArray())), lastValueFrom(events$.pipe(outputText()), { defaultValue: '' })]);
    const fc = found.filter((c): c is FunctionToolCall => c.type === 'function_call');
    if (fc.length === 0) return { lane, text, calls };
    calls.push(...fc.map((c) => c.name));
    input = await Promise.all(fc.map((c) => runCall(tools, c)));
    previous = responseId;
  }
  throw new Error(`lane ${lane}: no answer after 5 turns`);
}

export interface SocketAgentsOptions extends ResponsesSocketConfig {
  readonly model?: string;
  readonly prompts?: readonly string[];
}

export async function main(options: SocketAgentsOptions = {}) {
  const socket = connectResponsesSocket(options);
  try {
    const prompts = options.prompts ?? ['Weather in Paris?', 'Weather in Oslo?', 'Weather in Lima?'];
    return await Promise.all(prompts.map((p, i) => agent(socket, `agent-${i}`, p, options.model ?? 'gpt-5.4-nano')));
  } finally {
    socket.close();
  }
}
