// `openai-rx demo`: real pipelines over real sockets. Offline (default) against the embedded loopback
// servers serving embedded transcripts; with --live against the OpenAI API (or OPENAI_BASE_URL's provider).
import { concatMap, from, lastValueFrom, Observable, tap, toArray, type MonoTypeOperatorFunction } from 'rxjs';
import {
  accumulateText, collectToolCalls, connectResponsesSocket, isLaneError, laneMux, outputText, resumeFrom, retrieveResponseStream,
  StreamInterruptedError, streamResponse, toChatChunks, toChatSSE,
  type ClientConfig, type ResponsesClientEvent, type ResponsesSocket, type ResponseStreamEvent, type ResumeCursor, type ToolCall,
} from '../lib/index.js';
import { startResponsesWebSocketServer, startTestServer, textTranscript, type ResponsesWebSocketServer, type TestServer } from '../lib/testing/index.js';

import { demoDurable, durableStep, DURABLE_DROP_AFTER, type DurableResult } from './demo-durable.js';
import { clearProgress, formatBytes, paint, progress, table, type Out } from './style.js';
import { embeddedTranscripts } from './transcripts.js';

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
  readonly chunkDelay?: number;
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

/** Where the pipelines go: the loopback servers or the API. */
interface Backend {
  readonly label: string;
  readonly http: ClientConfig;
  readonly socket: () => ResponsesSocket;
  readonly model: (step: 'text' | 'tools' | 'tool-answer' | 'background' | 'lanes' | 'durable') => string;
  /** Makes the first connection of the resume step break mid-stream. */
  readonly cut: MonoTypeOperatorFunction<ResponseStreamEvent>;
  close(): Promise<void>;
}

const DROP_AFTER = 12;

const LANES: ReadonlyArray<{ lane: string; input: string; answer: string }> = [
  { lane: 'summary', input: 'Summarise RxJS in one sentence.', answer: 'RxJS composes asynchronous events as streams of values.' },
  { lane: 'translate', input: 'Translate "good morning" into French.', answer: 'Bonjour, or more formally: bonne matinée.' },
  { lane: 'title', input: 'A title for a post about streaming.', answer: 'Every Token, As It Happens' },
];

const TOOLS = [
  { type: 'function', name: 'get_weather', description: 'Current weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city', 'unit'], additionalProperties: false }, strict: true },
  { type: 'function', name: 'get_time', description: 'Current local time in a timezone', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'], additionalProperties: false }, strict: true },
];

/** The demo's local tools. */
export function runTool(name: string, args: unknown): string {
  if (name === 'get_weather') return JSON.stringify({ city: (args as { city?: string }).city ?? '?', temperature: 18, unit: 'celsius', sky: 'clear' });
  if (name === 'get_time') return JSON.stringify({ timezone: (args as { timezone?: string }).timezone ?? '?', time: '14:05' });
  return JSON.stringify({ error: `unknown tool ${name}` });
}

/** Counts the bytes of every response body, whoever sends them. */
function countingFetch(counter: { bytes: number }): typeof fetch {
  return async (input, init) => {
    const res = await globalThis.fetch(input as string, init);
    if (!res.body) return res;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          counter.bytes += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

async function offlineBackend(chunkDelay: number, counter: { bytes: number }): Promise<Backend & { server: TestServer; ws: ResponsesWebSocketServer }> {
  const server = await startTestServer({
    transcripts: { ...embeddedTranscripts(), 'demo-durable': demoDurable() },
    chunkDelay,
    // The first request for the background response is cut half-way through an event.
    faults: (r) => (r.route === 'responses.create' && (r.body as { model?: unknown } | undefined)?.model === 'demo-background' ? { type: 'drop', afterEvents: DROP_AFTER } : undefined),
  });
  const ws = await startResponsesWebSocketServer({
    respond: (request) => {
      const lane = LANES.find((l) => l.input === request['input']) ?? LANES[0]!;
      return textTranscript({ responseId: `resp_lane_${lane.lane}`, model: 'demo-model', deltas: lane.answer.split(/(?<= )/) });
    },
  });
  return {
    label: `loopback servers ${server.baseURL} and ${ws.url}`,
    server,
    ws,
    http: { baseURL: server.baseURL, apiKey: 'demo-key', fetch: countingFetch(counter) },
    socket: () => connectResponsesSocket({ url: ws.url, apiKey: 'demo-key' }),
    model: (step) => (step === 'lanes' ? 'demo-model' : `demo-${step}`),
    cut: (s) => s,
    close: async () => {
      await Promise.all([server.close(), ws.close()]);
    },
  };
}

function liveBackend(apiKey: string, model: string, baseURL: string | undefined, counter: { bytes: number }): Backend {
  const where = baseURL ? { baseURL } : {};
  return {
    label: `${baseURL ?? 'the OpenAI API'} (model ${model})`,
    http: { apiKey, fetch: countingFetch(counter), ...where },
    socket: () => connectResponsesSocket({ apiKey, ...where }),
    model: () => model,
    // The API will not drop a connection on request: break it here, as a network would.
    cut: (source) =>
      new Observable<ResponseStreamEvent>((subscriber) => {
        let n = 0;
        let id: string | undefined;
        const sub = source.subscribe({
          next(e) {
            const r = (e as { response?: { id?: string } }).response;
            if (r?.id) id = r.id;
            subscriber.next(e);
            if (++n === DROP_AFTER) subscriber.error(new StreamInterruptedError(id, e.sequence_number, 'connection cut by the demo'));
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => subscriber.complete(),
        });
        return () => sub.unsubscribe();
      }),
    close: async () => undefined,
  };
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
    : await offlineBackend(options.chunkDelay ?? 12, counter);
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
            if (e.type === 'response.created') toolsResponseId = (e as { response: { id: string } }).response.id;
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
            { delay: 50 },
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

