// Recipe: an agent with runAgent. Tools are io-ts codecs plus a function; runAgent derives their JSON Schema,
// decodes the model's arguments, runs the calls (in parallel), sends the outputs back turn after turn, and
// streams everything as one Observable: cancel it and the request and the running tools stop.
import * as t from 'io-ts';
import { filter, fromEvent, lastValueFrom, NEVER, share, takeUntil, tap } from 'rxjs';
import {
  connectResponsesSocket, defineTool, isAgentEvent, outputText, runAgent, withDescription,
  type AgentEvent, type AgentRunFinishedEvent, type ClientConfig, type RunAgentOptions,
} from '../index.js';

export const getWeather = defineTool({
  description: 'The current weather in a city',
  parameters: t.type({
    city: withDescription(t.string, 'City name, e.g. Paris'),
    unit: t.union([t.keyof({ celsius: null, fahrenheit: null }), t.undefined]), // optional: the model may send null
  }),
  execute: ({ city, unit }, { signal }) => lookUpWeather(city, unit ?? 'celsius', signal),
});

export const getTime = defineTool({
  description: 'The local time in a time zone',
  parameters: t.type({ timezone: withDescription(t.string, 'An IANA time zone, e.g. Europe/Paris') }),
  execute: ({ timezone }) => ({ timezone, time: '14:05' }),
});

/** A stand-in for a weather API: answers after a short wait, or stops at once when the run is cancelled. */
function lookUpWeather(city: string, unit: string, signal: AbortSignal): Promise<{ city: string; temperature: number; unit: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve({ city, temperature: unit === 'celsius' ? 18 : 64, unit }), 10);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(new Error('cancelled'))), { once: true });
  });
}

export interface AgentExampleOptions extends ClientConfig {
  readonly model?: string;
  readonly prompt?: string;
  /** Run the turns on a WebSocket lane (one connection, `previous_response_id` on it) instead of HTTP. */
  readonly webSocket?: boolean;
  /** Called with each piece of the growing answer (a UI binding). */
  readonly onText?: (text: string) => void;
  /** Called with each `agent.*` event (tool progress for a UI). */
  readonly onEvent?: (event: AgentEvent) => void;
  /** Cancels the run (a Stop button): the request in flight and the running tools stop, nothing more is sent. */
  readonly signal?: AbortSignal;
}

export async function main(options: AgentExampleOptions = {}) {
  const { model = 'gpt-5.4-mini', prompt = 'What is the weather and the time in Paris?', webSocket = false, onText, onEvent, signal, ...config } = options;
  const socket = webSocket ? connectResponsesSocket({ baseURL: config.baseURL, apiKey: config.apiKey }) : undefined;
  const transport: Pick<RunAgentOptions, 'config' | 'socket'> = socket ? { socket } : { config };
  try {
    // Cancelling is unsubscribing: takeUntil the abort, and runAgent stops the request and the running tools.
    const stop$ = signal ? fromEvent(signal, 'abort') : NEVER;
    const run$ = runAgent({ model, input: prompt }, { ...transport, tools: { get_weather: getWeather, get_time: getTime }, maxTurns: 5 })
      .pipe(takeUntil(stop$), share());
    const log: string[] = [];
    // One subscription for the log and the answer's text; the run.finished event for the conversation.
    const finished = lastValueFrom(
      run$.pipe(
        filter(isAgentEvent),
        tap((e) => (log.push(describeEvent(e)), onEvent?.(e))),
        filter((e): e is AgentRunFinishedEvent => e.type === 'agent.run.finished'),
      ),
      { defaultValue: undefined },
    );
    const text = await lastValueFrom(run$.pipe(outputText(), tap((t) => onText?.(t))), { defaultValue: '' });
    const done = await finished;
    return { text, cancelled: done === undefined, turns: done?.turns ?? 0, log, items: done?.items ?? [] };
  } finally {
    socket?.close();
  }
}

function describeEvent(e: AgentEvent): string {
  switch (e.type) {
    case 'agent.tool_call.started': return `turn ${e.turn}: ${e.call.name ?? e.call.type}(${e.call.arguments ?? ''})`;
    case 'agent.tool_call.completed': return `turn ${e.turn}: ${e.call.name ?? e.call.type} → ${String(e.output['output'])}`;
    case 'agent.tool_call.failed': return `turn ${e.turn}: ${e.call.name ?? e.call.type} failed (${e.reason}): ${e.message}`;
    case 'agent.approval.requested': return `turn ${e.turn}: approval asked for ${e.call.name ?? e.call.type}`;
    case 'agent.approval.resolved': return `turn ${e.turn}: ${e.approved ? 'approved' : 'refused'}`;
    case 'agent.turn.finished': return `turn ${e.turn} finished (${e.response_id ?? 'no id'})`;
    case 'agent.run.finished': return `done after ${e.turns} turns`;
  }
}
