// `openai-rx replay FILE|-`: decode a captured stream and show what it holds.
import { readFile } from 'node:fs/promises';
import { from, lastValueFrom, Observable, toArray } from 'rxjs';
import {
  accumulateResponse, accumulateText, collectToolCalls, DecodeError, fromChatChunks, fromChatCompletionsSSE, fromResponsesSSE, StreamInterruptedError,
  toChatChunks, toChatSSE, toResponsesSSE, type ResponseStreamEvent, type TextSnapshot, type ToolCall,
} from '../lib/index.js';
import { CLIError, parse } from './args.js';
import { outFor, paint, table } from './style.js';

export interface Capture {
  readonly kind: 'responses' | 'chat';
  readonly format: 'sse' | 'jsonl';
  /** The capture as SSE text, whatever it was saved as. */
  readonly sse: string;
  /** Source line of each JSON payload, by sequence_number where there is one, else in order. */
  readonly lineOf: (sequence: number | undefined) => number | undefined;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const utf8 = new TextDecoder();
  let text = '';
  for await (const c of stream as AsyncIterable<Uint8Array | string>) text += typeof c === 'string' ? c : utf8.decode(c, { stream: true });
  return text + utf8.decode();
}

export async function readCapture(file: string, stdin: NodeJS.ReadableStream): Promise<string> {
  if (file === '-') return readAll(stdin);
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'ENOENT') throw new CLIError(`${file}: no such file`);
    if (code === 'EISDIR') throw new CLIError(`${file}: is a directory, not a capture`);
    throw new CLIError(`${file}: cannot read (${code ?? String(e)})`);
  }
}

const excerpt = (s: string) => JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}...` : s);

/**
 * Checks a capture line by line (so a broken payload is reported with its line number) and brings it to
 * SSE text: a body saved by `curl -N` (`event:`/`data:` lines), or one JSON event per line.
 */
export function parseCapture(text: string, name: string): Capture {
  const lines = text.split(/\r\n|\r|\n/);
  const first = lines.find((l) => l.trim() !== '');
  if (first === undefined) throw new CLIError(`${name}: empty capture`);
  const payloads: Array<{ line: number; value: Record<string, unknown> }> = [];
  const check = (json: string, line: number): Record<string, unknown> => {
    let v: unknown;
    try {
      v = JSON.parse(json);
    } catch {
      throw new CLIError(`${name}:${line}: not valid JSON: ${excerpt(json)}`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new CLIError(`${name}:${line}: not a JSON object: ${excerpt(json)}`);
    const o = v as Record<string, unknown>;
    if (typeof o['type'] !== 'string' && o['object'] !== 'chat.completion.chunk') throw new CLIError(`${name}:${line}: an event needs a "type" (or a chat chunk's "object"): ${excerpt(json)}`);
    payloads.push({ line, value: o });
    return o;
  };

  let format: Capture['format'];
  let sse: string;
  if (first.trimStart().startsWith('{')) {
    format = 'jsonl';
    const out: string[] = [];
    lines.forEach((l, i) => {
      if (l.trim() === '') return;
      check(l, i + 1);
      out.push(`data: ${l.trim()}\n\n`);
    });
    sse = out.join('');
  } else {
    format = 'sse';
    // Consecutive data lines form one payload (SSE joins them with \n); a blank line ends it.
    let data: string[] = [];
    let at = 0;
    const flush = () => {
      if (data.length > 0 && !(data.length === 1 && data[0]!.trim() === '[DONE]')) check(data.join('\n'), at);
      data = [];
    };
    lines.forEach((l, i) => {
      if (l === '') return flush();
      if (l.startsWith('data:')) {
        if (data.length === 0) at = i + 1;
        data.push(l.slice(l.startsWith('data: ') ? 6 : 5));
      } else if (!/^(event|id|retry)?:|^:|^(event|id|retry)$/.test(l)) {
        throw new CLIError(`${name}:${i + 1}: not an SSE line (expected event:, data:, id: or a blank line): ${excerpt(l)}`);
      }
    });
    flush();
    sse = text;
  }
  if (payloads.length === 0) throw new CLIError(`${name}: no events in the capture`);
  const kind = payloads.some((p) => p.value['object'] === 'chat.completion.chunk') ? 'chat' : 'responses';
  return {
    kind,
    format,
    sse,
    lineOf: (seq) => (seq === undefined ? undefined : payloads.find((p) => p.value['sequence_number'] === seq)?.line),
  };
}

export interface Decoded {
  readonly events: readonly ResponseStreamEvent[];
  /** Why decoding stopped early, if it did. */
  readonly error: Error | undefined;
}

/** Decodes a capture into Responses events (a chat capture through `fromChatChunks`), keeping what decoded before a failure. */
export function decodeCapture(capture: Capture): Promise<Decoded> {
  const events$: Observable<ResponseStreamEvent> =
    capture.kind === 'chat' ? fromChatCompletionsSSE(capture.sse).pipe(fromChatChunks()) : fromResponsesSSE(capture.sse, { errorEvents: 'value' });
  return new Promise((resolve) => {
    const events: ResponseStreamEvent[] = [];
    events$.subscribe({
      next: (e) => events.push(e),
      error: (error: unknown) => resolve({ events, error: error instanceof Error ? error : new Error(String(error)) }),
      complete: () => resolve({ events, error: undefined }),
    });
  });
}

export interface ReplaySummary {
  readonly kind: 'responses' | 'chat';
  readonly format: 'sse' | 'jsonl';
  readonly responseId: string | undefined;
  readonly status: string | undefined;
  readonly events: number;
  readonly text: string;
  readonly parts: ReadonlyArray<{ kind: string; outputIndex: number; contentIndex: number; text: string }>;
  readonly toolCalls: ReadonlyArray<{ type: string; state: string; name?: string; callId?: string; arguments?: string }>;
  readonly eventTypes: ReadonlyArray<{ type: string; count: number; firstSequence: number | undefined; lastSequence: number | undefined }>;
  readonly usage: unknown;
  readonly error: string | undefined;
}

function describeCall(c: ToolCall): ReplaySummary['toolCalls'][number] {
  const extra = c as Partial<{ name: string; callId: string; arguments: string; input: string }>;
  return {
    type: c.type,
    state: c.state,
    ...(extra.name !== undefined ? { name: extra.name } : {}),
    ...(extra.callId !== undefined ? { callId: extra.callId } : {}),
    ...(extra.arguments !== undefined ? { arguments: extra.arguments } : extra.input !== undefined ? { arguments: extra.input } : {}),
  };
}

export async function summarise(capture: Capture, decoded: Decoded, name: string): Promise<ReplaySummary> {
  const events$ = from(decoded.events);
  const [finals, calls, responses] = await Promise.all([
    lastValueFrom(events$.pipe(accumulateText({ kind: 'all' }), toArray())),
    lastValueFrom(events$.pipe(collectToolCalls({ incomplete: true, hosted: true }), toArray())),
    lastValueFrom(events$.pipe(accumulateResponse(), toArray())),
  ]);
  const parts = finals.filter((s: TextSnapshot) => s.done).map((s) => ({ kind: s.kind, outputIndex: s.outputIndex, contentIndex: s.contentIndex, text: s.text }));
  const types = new Map<string, { type: string; count: number; firstSequence: number | undefined; lastSequence: number | undefined }>();
  for (const e of decoded.events) {
    const seq = typeof e.sequence_number === 'number' ? e.sequence_number : undefined;
    const t = types.get(e.type) ?? { type: e.type, count: 0, firstSequence: seq, lastSequence: seq };
    t.count++;
    if (seq !== undefined) t.lastSequence = seq;
    types.set(e.type, t);
  }
  const last = responses[responses.length - 1];
  let error: string | undefined;
  const err = decoded.error;
  if (err instanceof StreamInterruptedError) error = `the capture ends before a terminal event (last sequence_number ${err.lastSequenceNumber ?? 'none'})`;
  else if (err instanceof DecodeError) {
    const line = capture.lineOf(err.sequenceNumber);
    error = `${line !== undefined ? `${name}:${line}: ` : ''}${err.message}`;
  } else if (err) error = err.message;
  return {
    kind: capture.kind,
    format: capture.format,
    responseId: last?.id,
    status: last?.status ?? undefined,
    events: decoded.events.length,
    text: parts.filter((p) => p.kind === 'output_text').map((p) => p.text).join(''),
    parts,
    toolCalls: calls.map(describeCall),
    eventTypes: [...types.values()],
    usage: last?.usage ?? null,
    error,
  };
}

export async function runReplay(argv: readonly string[], io: { stdout: NodeJS.WritableStream & { isTTY?: boolean }; stderr: NodeJS.WritableStream; stdin: NodeJS.ReadableStream; env: NodeJS.ProcessEnv }): Promise<number> {
  const a = parse(argv, { to: 'string', json: 'boolean' }, 1);
  const file = a.positionals[0];
  if (file === undefined) throw new CLIError('replay needs a FILE (or - for standard input)', 2);
  const to = a.flags.to;
  if (to !== undefined && to !== 'chat' && to !== 'responses') throw new CLIError(`--to must be chat or responses, got ${JSON.stringify(to)}`, 2);
  if (to !== undefined && a.flags.json) throw new CLIError('--to and --json cannot be combined', 2);
  const name = file === '-' ? '<stdin>' : file;
  const capture = parseCapture(await readCapture(file, io.stdin), name);
  const decoded = await decodeCapture(capture);
  if (decoded.error instanceof DecodeError) {
    const line = capture.lineOf(decoded.error.sequenceNumber);
    throw new CLIError(`${line !== undefined ? `${name}:${line}` : name}: ${decoded.error.message}`);
  }

  if (to !== undefined) {
    const events$ = from(decoded.events);
    const body = await lastValueFrom(
      (to === 'chat' ? events$.pipe(toChatChunks({ includeUsage: true }), toChatSSE({ onError: 'event' })) : events$.pipe(toResponsesSSE({ onError: 'event' }))).pipe(toArray()),
    );
    io.stdout.write(body.join(''));
    if (decoded.error) io.stderr.write(`openai-rx: ${name}: ${decoded.error.message}\n`);
    return decoded.error ? 1 : 0;
  }

  const s = await summarise(capture, decoded, name);
  if (a.flags.json) {
    io.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return s.error ? 1 : 0;
  }
  const out = outFor(io.stdout, io.env);
  const w = (t: string) => io.stdout.write(t);
  w(`${paint(out, 'bold', name)}: ${s.kind === 'chat' ? 'Chat Completions' : 'Responses'} ${s.format === 'jsonl' ? 'JSON lines' : 'SSE'}, ${s.events} events`);
  w(`${s.responseId ? `, response ${s.responseId}` : ''}${s.status ? `, ${paint(out, s.status === 'completed' ? 'green' : 'yellow', s.status)}` : ''}\n`);
  for (const p of s.parts) {
    w(`\n${paint(out, 'bold', p.kind === 'output_text' ? 'Text' : p.kind)} ${paint(out, 'dim', `(output ${p.outputIndex}, part ${p.contentIndex})`)}\n${paint(out, p.kind === 'refusal' ? 'yellow' : 'cyan', p.text)}\n`);
  }
  if (s.toolCalls.length > 0) {
    w(`\n${paint(out, 'bold', 'Tool calls')}\n`);
    for (const c of s.toolCalls) w(`  ${paint(out, 'magenta', c.name ? `${c.name}(${c.arguments ?? ''})` : c.type)} ${paint(out, 'dim', `${c.type}, ${c.state}${c.callId ? `, ${c.callId}` : ''}`)}\n`);
  }
  w(`\n${paint(out, 'bold', 'Events')}\n`);
  w(table(s.eventTypes.map((t) => [t.type, String(t.count), t.firstSequence === undefined ? '' : t.firstSequence === t.lastSequence ? String(t.firstSequence) : `${t.firstSequence}–${t.lastSequence}`]), ['type', 'count', 'sequence']));
  if (s.error) {
    io.stderr.write(`openai-rx: ${name}: ${s.error}\n`);
    return 1;
  }
  return 0;
}
