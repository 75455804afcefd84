// `openai-rx demo`: real pipelines over real sockets. Offline (default) against the embedded loopback
// servers serving embedded transcripts; with --live against the OpenAI API (or OPENAI_BASE_URL's provider).
import { concatMap, from, lastValueFrom, tap, toArray, type MonoTypeOperatorFunction } from 'rxjs';
import { responseIdOf } from '../lib/events/guards.js';
import {
  collectToolCalls, isLaneError, laneMux, outputText, resumeFrom, retrieveResponseStream, streamResponse, toChatChunks, toChatSSE,
  type ResponsesClientEvent, type ResponseStreamEvent, type ResumeCursor, type ToolCall,
} from '../index.js';
import { DROP_AFTER, LANES, liveBackend, offlineBackend } from './demo-backend.js';
import { durableStep, DURABLE_DROP_AFTER, type DurableResult } from './demo-durable.js';
import { runTool, TOOLS } from './demo-tools.js';
import { clearProgress, formatBytes, paint, progress, table, type Out } from './style.js';

export { runTool } from './demo-tools.js';

export interface DemoOptions {
  readonly out: Out;
  /** Against the OpenAI API (needs `apiKey`) instead of the loopback servers. */
  readonly live?: boolean;
  readonly apiKey?: string;
  /** Model for --live. */
  readonly model?: string;
  /** For --live: another OpenAI-compatible provider (`OPENAI_BASE_URL`); its WebSocket mode at `{baseURL}/responses`. */
  readonly baseURL?: string;
  /** Milliseconds between the events the loopback server writes (offline). Default 12. */
  readonly chunkDelayMs?: number;
}

/** What one step did, for the summary. */
export interface StepResult {
  readonly step: string;
  readonly events: number;
  readonly bytes: number | undefined;
  readonly ms: number;
  readonly produced: string;
}

export interface DemoResult {
  readonly steps: readonly StepResult[];
  readonly ms: number;
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly toolAnswer: string;
  readonly chatChunks: number;
  readonly chatSSE: string;
  readonly resumed: { readonly text: string; readonly cursor: ResumeCursor | undefined; readonly sequence: readonly number[] };
  readonly lanes: Readonly<Record<string, string>>;
  readonly durable: DurableResult;
}

/** Renders a growing string live: writes what was added since the last value. */
function liveWriter(out: Out, colour: 'cyan' | 'green' = 'cyan'): { write(text: string): void; text(): string } {
  let shown = '';
  return {
    write(text) {
      if (text.startsWith(shown)) out.stream.write(paint(out, colour, text.slice(shown.length)));
      else out.stream.write(paint(out, colour, `\n${text}`));
      shown = text;
    },
    text: () => shown,
  };
}

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const { out } = options;
  const w = (s: string) => out.stream.write(s);
  const heading = (n: number, title: string, what: string) => w(`\n${paint(out, 'bold', `${n}. ${title}`)}  ${paint(out, 'dim', what)}\n`);
  const counter = { bytes: 0 };
  const backend = options.live
    ? liveBackend(options.apiKey ?? '', options.model ?? 'gpt-5.4-nano', options.baseURL, counter)
    : await offlineBackend(options.chunkDelayMs ?? 12, counter);
  const steps: StepResult[] = [];
  const started = Date.now();
  const step = async <T>(name: string, run: (count: MonoTypeOperatorFunction<ResponseStreamEvent>) => Promise<{ value: T; produced: string }>): Promise<T> => {
    const t0 = Date.now();
    const b0 = counter.bytes;
    let events = 0;
    const { value, produced } = await run(tap(() => events++));
    steps.push({ step: name, events, bytes: counter.bytes - b0, ms: Date.now() - t0, produced });
    return value;
  };

  try {
    w(`${paint(out, 'bold', 'openai-rx demo')} against ${backend.label}${options.live ? '' : paint(out, 'dim', ' (offline: no API key, no network)')}\n`);

    // 1. Text over SSE, rendered as it arrives; the events are kept for step 3.
    heading(1, 'Streaming text over SSE', 'streamResponse → outputText(), rendered live');
    const recorded: ResponseStreamEvent[] = [];
    const text = await step('SSE text', async (count) => {
      const view = liveWriter(out);
      w('   ');
      const value = await lastValueFrom(
        streamResponse({ model: backend.model('text'), input: 'Why reactive streams?' }, backend.http).pipe(
          count,
          tap((e) => recorded.push(e)),
          outputText(),
          tap((t) => view.write(t)),
        ),
        { defaultValue: '' },
      );
      w('\n');
      return { value, produced: `outputText: ${value.length} characters` };
    });

    // 2. Tool calls: collected when complete, run here, their outputs sent back.
    heading(2, 'Tool calls', 'collectToolCalls() → run them → function_call_output → the answer');
    let toolsResponseId: string | undefined;
    const toolCalls = await step('tool calls', async (count) => {
      const calls = await lastValueFrom(
        streamResponse({ model: backend.model('tools'), input: 'Weather and time in Paris?', tools: TOOLS, parallel_tool_calls: true }, backend.http).pipe(
          count,
          tap((e) => {
            if (e.type === 'response.created') toolsResponseId = responseIdOf(e);
          }),
          collectToolCalls(),
          toArray(),
        ),
      );
      for (const c of calls) w(`   ${paint(out, 'magenta', c.type === 'function_call' ? `${c.name}(${c.arguments})` : c.type)}\n`);
      return { value: calls, produced: `collectToolCalls: ${calls.length} calls` };
    });
    const toolAnswer = await step('tool outputs', async (count) => {
      const fc = toolCalls.flatMap((c) => (c.type === 'function_call' ? [c] : []));
      const input = fc.map((c) => {
        const output = runTool(c.name, c.parsed?.ok ? c.parsed.value : {});
        w(`   ${paint(out, 'dim', `→ ${c.name} returned ${output}`)}\n`);
        return { type: 'function_call_output', call_id: c.callId, output };
      });
      const view = liveWriter(out, 'green');
      w('   ');
      const answer = await lastValueFrom(
        streamResponse({ model: backend.model('tool-answer'), input, tools: TOOLS, ...(toolsResponseId ? { previous_response_id: toolsResponseId } : {}) }, backend.http).pipe(count, outputText(), tap((t) => view.write(t))),
        { defaultValue: '' },
      );
      w('\n');
      return { value: answer, produced: `outputText after ${input.length} outputs: ${answer.length} characters` };
    });

    // 3. The same events as Chat Completions chunks and SSE, for chat clients.
    heading(3, 'The same response as Chat Completions', 'toChatChunks() → toChatSSE()');
    const { chunks, sse } = await step('chat chunks', async (count) => {
      const chunkList = await lastValueFrom(from(recorded).pipe(count, toChatChunks({ includeUsage: true }), toArray()));
      const body = (await lastValueFrom(from(chunkList).pipe(toChatSSE(), toArray()))).join('');
      const show = (c: (typeof chunkList)[number]) => {
        const choice = c.choices[0];
        if (!choice) return `usage ${JSON.stringify(c.usage)}`;
        const delta = Object.fromEntries(Object.entries(choice.delta ?? {}).filter(([, v]) => v !== undefined && v !== null));
        return `delta ${JSON.stringify(delta)}${choice.finish_reason ? ` finish_reason ${JSON.stringify(choice.finish_reason)}` : ''}`;
      };
      const shown = [...chunkList.slice(0, 3).map(show), '…', ...chunkList.slice(-2).map(show)];
      for (const l of shown) w(`   ${paint(out, 'dim', l)}\n`);
      return { value: { chunks: chunkList.length, sse: body }, produced: `toChatChunks: ${chunkList.length} chunks, ${formatBytes(body.length)} of SSE` };
    });

    // 4. A background response whose connection drops mid-stream, resumed from its cursor.
    heading(4, 'Drop and resume', `background response cut after ${DROP_AFTER} events; resumeFrom(retrieveResponseStream)`);
    const resumed = await step('resume', async (count) => {
      let cursor: ResumeCursor | undefined;
      const sequence: number[] = [];
      const view = liveWriter(out);
      w('   ');
      const value = await lastValueFrom(
        streamResponse({ model: backend.model('background'), input: 'Explain background responses.', background: true, store: true }, backend.http).pipe(
          backend.cut,
          resumeFrom(
            (c) => {
              cursor = c;
              w(paint(out, 'yellow', ` ⟲ dropped; resuming after sequence ${c.sequenceNumber} `));
              return retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, backend.http);
            },
            { delayMs: 50 },
          ),
          count,
          tap((e) => {
            if (typeof e.sequence_number === 'number') sequence.push(e.sequence_number);
          }),
          outputText(),
          tap((t) => view.write(t)),
        ),
        { defaultValue: '' },
      );
      w('\n');
      const once = sequence.every((n, i) => i === 0 || n > (sequence[i - 1] ?? -1));
      w(`   ${paint(out, once ? 'green' : 'red', `sequence ${sequence[0]}…${sequence[sequence.length - 1]}: ${once ? 'each number once, in order' : 'out of order!'}`)}\n`);
      return {
        value: { text: value, cursor, sequence },
        produced: cursor ? `resumeFrom: 1 reconnect after seq ${cursor.sequenceNumber}, ${value.length} characters` : 'resumeFrom: no drop',
      };
    });

    // 5. Three lanes over one WebSocket.
    heading(5, 'Three lanes over one WebSocket', 'laneMux(socket): concurrent responses, FIFO per stream_id');
    const lanes = await step('WebSocket lanes', async (count) => {
      const socket = backend.socket();
      const texts: Record<string, string> = Object.fromEntries(LANES.map((l) => [l.lane, '']));
      let switches = 0;
      let lastLane: string | undefined;
      try {
        const requests: ResponsesClientEvent[] = LANES.map((l) => ({ type: 'response.create', stream_id: l.lane, model: backend.model('lanes'), input: l.input, store: false }) as ResponsesClientEvent);
        await lastValueFrom(
          from(requests).pipe(
            laneMux(socket),
            concatMap((e) => {
              if (isLaneError(e)) throw e;
              return [e as ResponseStreamEvent];
            }),
            count,
            tap((e) => {
              const lane = (e as { stream_id?: string }).stream_id;
              if (e.type !== 'response.output_text.delta' || lane === undefined) return;
              texts[lane] = (texts[lane] ?? '') + e.delta;
              if (lastLane !== undefined && lastLane !== lane) switches++;
              lastLane = lane;
              progress(out, `   ${LANES.map((l) => `${l.lane} ${paint(out, 'cyan', String((texts[l.lane] ?? '').length).padStart(3))}`).join('  ')} characters`);
            }),
          ),
          { defaultValue: undefined },
        );
      } finally {
        socket.close();
      }
      clearProgress(out);
      for (const l of LANES) w(`   ${paint(out, 'bold', l.lane.padEnd(10))}${paint(out, 'cyan', texts[l.lane] ?? '')}\n`);
      w(`   ${paint(out, 'dim', `the lanes interleaved ${switches} times on one connection`)}\n`);
      return { value: texts, produced: `laneMux: 3 lanes, ${switches} interleavings` };
    });

    // 6. A stream recorded to the event log outlives its producer: a reader of the log finishes it.
    heading(6, 'A stream that outlives its producer', `persistTo(memoryEventLog()), producer dropped after ${DURABLE_DROP_AFTER} events; fromEventLog({ upstream }) finishes it`);
    const durable = await step('durable log', (count) => durableStep({ out, http: backend.http, model: backend.model('durable'), count, view: liveWriter(out) }));

    const ms = Date.now() - started;
    const total = steps.reduce((a, s) => a + s.events, 0);
    w(`\n${paint(out, 'bold', 'Summary')}\n`);
    w(table(steps.map((s) => [s.step, String(s.events), s.bytes ? formatBytes(s.bytes) : '—', `${s.ms} ms`, s.produced]), ['step', 'events', 'bytes', 'time', 'result']));
    w(`${paint(out, 'green', '✓')} ${total} events in ${ms} ms${options.live ? '' : ', offline'}\n`);
    return { steps, ms, text, toolCalls, toolAnswer, chatChunks: chunks, chatSSE: sse, resumed, lanes, durable };
  } finally {
    await backend.close();
  }
}

