// `openai-rx replay FILE|-`: decode a captured stream and show what it holds, response by response.
import { readFile } from 'node:fs/promises';
import { from, lastValueFrom, Observable, toArray } from 'rxjs';
import {
  accumulateResponse, accumulateText, collectToolCalls, DecodeError, fromChatChunks, fromChatCompletionsSSE, fromResponsesSSE, ResponseStreamError,
  ResponseStreamTracker, StreamInterruptedError, toChatSSE, toResponsesSSE, type ResponseStreamEvent, type TextSnapshot, type ToolCall,
} from '../lib/index.js';
import { CLIError, parse, usage } from './args.js';
import { toChatKeepingCustomTools } from './chat.js';
import { outFor, paint, table, type Out } from './style.js';

/** One SSE message of a capture: where it starts, its `event:` name, its data and (when JSON) its payload. */
export interface CaptureMessage {
  /** The line the message starts on (its `event:` line, if it has one). */
  readonly line: number;
  readonly event: string | undefined;
  readonly data: string;
  readonly payload: Record<string, unknown> | undefined;
}

/** The messages of one response in the capture, and that response as SSE text. */
export interface CaptureSegment {
  readonly messages: readonly CaptureMessage[];
  readonly sse: string;
}

export interface Capture {
  readonly kind: 'responses' | 'chat';
  readonly format: 'sse' | 'jsonl';
  /** The whole capture as SSE text, whatever it was saved as (a chat capture ends with `data: [DONE]`). */
  readonly sse: string;
  /** One per response, in order: a capture may hold several one after another. */
  readonly segments: readonly CaptureSegment[];
  /** The capture ends inside this line (saved while the stream was still coming): what is before it is kept. */
  readonly cutAtLine: number | undefined;
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

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);
const isChatChunk = (o: Record<string, unknown>): boolean => o['object'] === 'chat.completion.chunk' || (o['type'] === undefined && Array.isArray(o['choices']));

const sseOf = (m: CaptureMessage): string => `${m.event !== undefined ? `event: ${m.event}\n` : ''}${m.data.split('\n').map((l) => `data: ${l}\n`).join('')}\n`;

/** Splits the messages into responses: a Responses capture at each `response.created` or after a terminal event, a chat one after `[DONE]` or where the chunk id changes. */
function segmentsOf(messages: readonly CaptureMessage[], kind: Capture['kind']): CaptureSegment[] {
  const groups: CaptureMessage[][] = [];
  let current: CaptureMessage[] = [];
  const close = () => {
    if (current.some((m) => m.payload !== undefined || m.event === 'error')) groups.push(current);
    current = [];
  };
  if (kind === 'responses') {
    let ended = false;
    for (const m of messages) {
      if (m.data === '[DONE]') continue;
      const type = m.payload?.['type'];
      if (current.length > 0 && (ended || type === 'response.created')) close();
      if (current.length === 0) ended = false;
      current.push(m);
      if (typeof type === 'string' && TERMINAL.has(type)) ended = true;
    }
  } else {
    let id: string | undefined;
    let finished = false;
    for (const m of messages) {
      if (m.data === '[DONE]') {
        current.push(m);
        close();
        id = undefined;
        finished = false;
        continue;
      }
      const next = typeof m.payload?.['id'] === 'string' && m.payload['id'] !== '' ? (m.payload['id'] as string) : undefined;
      if (next !== undefined && id !== undefined && next !== id) {
        // A new response: the id-less chunks that came after the last one finished open it (Azure starts with them).
        let k = current.length;
        while (finished && k > 0 && current[k - 1]!.payload?.['id'] === '') k--;
        const moved = current.splice(k);
        close();
        current = moved;
        finished = false;
      }
      if (next !== undefined) id = next;
      const choices = m.payload?.['choices'];
      if (Array.isArray(choices) && choices.some((c) => typeof (c as { finish_reason?: unknown } | null)?.finish_reason === 'string')) finished = true;
      current.push(m);
    }
  }
  close();
  return groups.map((g) => ({ messages: g, sse: g.map(sseOf).join('') + (kind === 'chat' ? 'data: [DONE]\n\n' : '') }));
}

/**
 * Checks a capture line by line (so a broken payload is reported with its line number) and splits it into
 * responses: a body saved by `curl -N` (`event:`/`data:` lines), or one JSON event or chunk per line. A byte
 * order mark is skipped; a last line without its line end that does not parse is where the capture was cut.
 */
export function parseCapture(input: string, name: string): Capture {
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const lines = text.split(/\r\n|\r|\n/);
  // The last line when the capture does not end with a line break: it may be cut.
  const open = lines.length > 0 && lines[lines.length - 1] !== '' ? lines.length - 1 : -1;
  const first = lines.find((l) => l.trim() !== '');
  if (first === undefined) throw new CLIError(`${name}: empty capture`);
  const messages: CaptureMessage[] = [];
  let cutAtLine: number | undefined;

  /** The payload, or `undefined` when the message is cut; a broken one is a one-line error naming its line. */
  const check = (data: string, line: number, event: string | undefined, lastLine: number): Record<string, unknown> | undefined | 'cut' => {
    let v: unknown;
    try {
      v = JSON.parse(data);
    } catch {
      if (lastLine === open) return 'cut';
      // A provider's error report may be plain text after `event: error`: the decoder reads it.
      if (event === 'error') return undefined;
      throw new CLIError(`${name}:${line}: not valid JSON (${data.length} characters)`);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      if (event === 'error') return undefined;
      throw new CLIError(`${name}:${line}: not a JSON object`);
    }
    const o = v as Record<string, unknown>;
    if (typeof o['type'] !== 'string' && !isChatChunk(o) && o['error'] === undefined && event !== 'error') {
      throw new CLIError(`${name}:${line}: an event needs a "type" (or a chat chunk's "object")`);
    }
    return o;
  };

  let format: Capture['format'];
  if (first.trimStart().startsWith('{')) {
    format = 'jsonl';
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!.trim();
      if (l === '' || l === '[DONE]' || l === 'data: [DONE]') continue;
      const p = check(l, i + 1, undefined, i);
      if (p === 'cut') {
        cutAtLine = i + 1;
        break;
      }
      messages.push({ line: i + 1, event: undefined, data: l, payload: p });
    }
  } else {
    format = 'sse';
    // Consecutive data lines form one payload (SSE joins them with \n); a blank line ends it.
    let data: string[] = [];
    let event: string | undefined;
    let at = 0;
    let last = 0;
    let blockStart: number | undefined;
    const flush = () => {
      if (data.length > 0 && cutAtLine === undefined) {
        const joined = data.join('\n');
        const line = blockStart ?? at;
        if (joined.trim() === '[DONE]') messages.push({ line, event, data: '[DONE]', payload: undefined });
        else {
          const p = check(joined, at, event, last);
          if (p === 'cut') cutAtLine = last + 1;
          else messages.push({ line, event, data: joined, payload: p });
        }
      }
      data = [];
      event = undefined;
      blockStart = undefined;
    };
    for (let i = 0; i < lines.length && cutAtLine === undefined; i++) {
      const l = lines[i]!;
      if (l === '') {
        flush();
        continue;
      }
      if (blockStart === undefined) blockStart = i + 1;
      if (l.startsWith('data:')) {
        if (data.length === 0) at = i + 1;
        last = i;
        data.push(l.slice(l.startsWith('data: ') ? 6 : 5));
      } else if (l.startsWith('event:')) {
        event = l.slice(6).trim();
        if (i === open) cutAtLine = i + 1; // an event name with nothing after it
      } else if (!/^(id|retry)?:|^:|^(event|id|retry)$/.test(l)) {
        if (i === open) cutAtLine = i + 1;
        else throw new CLIError(`${name}:${i + 1}: not an SSE line (expected event:, data:, id: or a blank line)`);
      }
    }
    flush();
  }
  if (messages.every((m) => m.payload === undefined && m.event !== 'error')) {
    throw new CLIError(cutAtLine !== undefined ? `${name}:${cutAtLine}: the capture was cut in the middle of its first event` : `${name}: no events in the capture`);
  }
  const kind = messages.some((m) => m.payload !== undefined && isChatChunk(m.payload)) ||
    (messages.some((m) => m.data === '[DONE]') && !messages.some((m) => typeof m.payload?.['type'] === 'string'))
    ? 'chat'
    : 'responses';
  const segments = segmentsOf(messages, kind);
  const sse = format === 'sse' && cutAtLine === undefined ? text : segments.map((s) => s.sse).join('');
  return { kind, format, sse, segments, cutAtLine };
}

/** How one response's stream ended. */
export type Ending =
  /** A terminal event: `response.completed` or `response.incomplete` (or a chat stream's clean end). */
  | { readonly kind: 'finished' }
  /** `response.failed`, an `error` event or a provider's error report: the response failed, the capture is fine. */
  | { readonly kind: 'failed'; readonly eventType: string; readonly code: string | null; readonly message: string; readonly param: string | null }
  /** The capture is broken here: cut, malformed, or it stops before the response finished. */
  | { readonly kind: 'broken'; readonly reason: string };

export interface Decoded {
  readonly events: readonly ResponseStreamEvent[];
  readonly ending: Ending;
}

function failure(e: ResponseStreamError): Ending {
  // The error's message is `<event type>: <code>: <the provider's message>`.
  const prefix = `${e.eventType}: ${e.errorCode ? `${e.errorCode}: ` : ''}`;
  const message = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  return { kind: 'failed', eventType: e.eventType, code: e.errorCode ?? null, message, param: e.param ?? null };
}

/** Decodes one response of a capture into Responses events (a chat one through `fromChatChunks`), keeping what decoded before a failure. */
export function decodeSegment(capture: Capture, segment: CaptureSegment, name: string, last: boolean): Promise<Decoded> {
  const events$: Observable<ResponseStreamEvent> =
    capture.kind === 'chat'
      ? fromChatCompletionsSSE(segment.sse, { requireDone: false }).pipe(fromChatChunks())
      : fromResponsesSSE(segment.sse, { errorEvents: 'value' });
  const payloads = segment.messages.filter((m) => m.data !== '[DONE]');
  const lineOf = (e: DecodeError): number | undefined =>
    capture.kind === 'chat'
      ? payloads[e.sequenceNumber ?? -1]?.line
      : payloads.find((m) => e.sequenceNumber !== undefined && m.payload?.['sequence_number'] === e.sequenceNumber)?.line;
  return new Promise((resolve) => {
    const events: ResponseStreamEvent[] = [];
    const end = (ending: Ending) => {
      const cut = last && capture.cutAtLine !== undefined;
      if (cut && ending.kind !== 'failed') {
        ending = { kind: 'broken', reason: `${name}:${capture.cutAtLine}: the capture was cut in the middle of this line, after ${events.length} events` };
      }
      resolve({ events, ending });
    };
    events$.subscribe({
      next: (e) => events.push(e),
      error: (err: unknown) => {
        if (err instanceof ResponseStreamError) return end(failure(err));
        if (err instanceof StreamInterruptedError) {
          const seq = events.map((e) => e.sequence_number).filter((n) => typeof n === 'number').pop();
          return end({ kind: 'broken', reason: `the capture ends before the response finished (no terminal event; last sequence_number ${seq ?? 'none'})` });
        }
        if (err instanceof DecodeError) {
          const line = lineOf(err);
          return end({ kind: 'broken', reason: `${line !== undefined ? `${name}:${line}` : name}: ${err.message}` });
        }
        end({ kind: 'broken', reason: err instanceof Error ? err.message : String(err) });
      },
      complete: () => {
        const t = events[events.length - 1];
        if (t && (t.type === 'response.failed' || t.type === 'error')) return end(failure(new ResponseStreamTracker().errorOf(t)));
        end({ kind: 'finished' });
      },
    });
  });
}

export interface ToolCallSummary {
  readonly type: string;
  readonly state: string;
  readonly status?: string;
  readonly name?: string;
  readonly callId?: string;
  readonly serverLabel?: string;
  /** Function and MCP calls: the argument string; tool search: the arguments as JSON. */
  readonly arguments?: string;
  /** Custom tool calls: the free-form input. */
  readonly input?: string;
  /** Shell calls: the commands; local shell: the command line. */
  readonly commands?: readonly string[];
  /** Apply-patch calls: what to do to which file, and the diff. */
  readonly operation?: { readonly type?: string; readonly path?: string; readonly diff?: string };
  /** Web search: the query (or the page it opened); file search: the queries. */
  readonly query?: string;
  readonly queries?: readonly string[];
  readonly url?: string;
  /** Code interpreter: the code. */
  readonly code?: string;
  /** Computer use (and any other action): the action as sent. */
  readonly action?: unknown;
}

export interface ResponseSummary {
  readonly responseId: string | undefined;
  /** `completed`, `incomplete`, `failed`, …; for a broken capture, the last status the stream showed. */
  readonly status: string | undefined;
  readonly events: number;
  readonly text: string;
  readonly parts: ReadonlyArray<{ kind: string; outputIndex: number; contentIndex: number; text: string }>;
  readonly toolCalls: readonly ToolCallSummary[];
  readonly eventTypes: ReadonlyArray<{ type: string; count: number; firstSequence: number | undefined; lastSequence: number | undefined }>;
  readonly usage: unknown;
  /** Why the response failed (`response.failed`, an `error` event): the provider's code and message. */
  readonly error: { readonly eventType: string; readonly code: string | null; readonly message: string; readonly param: string | null } | null;
  /** Where the capture itself is broken, if it is (cut, malformed, stopped early). */
  readonly broken: string | null;
  /** The first and last line of the capture this response came from. */
  readonly lines: readonly [number, number];
}

export interface ReplaySummary {
  readonly kind: 'responses' | 'chat';
  readonly format: 'sse' | 'jsonl';
  /** Events decoded, all responses together. */
  readonly events: number;
  readonly responses: readonly ResponseSummary[];
  /** The first place the capture is broken (exit status 1), or null. */
  readonly broken: string | null;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const rec = (v: unknown): Record<string, unknown> | undefined => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const strings = (v: unknown): string[] | undefined => (Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined);

/** What matters of each kind of call: the command, the patch, the query, the input, the arguments. */
export function describeCall(c: ToolCall): ToolCallSummary {
  const item = rec(c.item) ?? {};
  const action = rec(item['action']);
  const out: { -readonly [K in keyof ToolCallSummary]: ToolCallSummary[K] } = { type: c.type, state: c.state };
  if (c.status !== undefined) out.status = c.status;
  const x = c as Partial<{ name: string; callId: string; arguments: unknown; input: string; serverLabel: string }>;
  if (x.name) out.name = x.name;
  if (x.callId) out.callId = x.callId;
  if (x.serverLabel) out.serverLabel = x.serverLabel;
  switch (c.type) {
    case 'function_call':
    case 'mcp_call':
    case 'mcp_approval_request':
      out.arguments = c.arguments;
      break;
    case 'custom_tool_call':
      out.input = c.input;
      break;
    case 'tool_search_call':
      if (c.arguments !== undefined) out.arguments = typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments);
      break;
    case 'shell_call': {
      const commands = strings(action?.['commands']) ?? (str(action?.['command']) !== undefined ? [str(action?.['command'])!] : strings(action?.['command']));
      if (commands) out.commands = commands;
      break;
    }
    case 'local_shell_call': {
      const argv = strings(action?.['command']);
      if (argv) out.commands = [argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')];
      break;
    }
    case 'apply_patch_call': {
      const op = rec(item['operation']);
      if (op) out.operation = { ...(str(op['type']) ? { type: str(op['type']) } : {}), ...(str(op['path']) ? { path: str(op['path']) } : {}), ...(str(op['diff']) !== undefined ? { diff: str(op['diff']) } : {}) };
      break;
    }
    case 'web_search_call': {
      const q = str(action?.['query']) ?? strings(action?.['queries'])?.join(' | ');
      if (q !== undefined) out.query = q;
      if (str(action?.['url'])) out.url = str(action?.['url']);
      if (action && q === undefined && !out.url) out.action = action;
      break;
    }
    case 'file_search_call': {
      const q = strings(item['queries']);
      if (q) out.queries = q;
      break;
    }
    case 'code_interpreter_call':
      if (str(item['code'])) out.code = str(item['code']);
      break;
    case 'computer_call':
      if (action) out.action = action;
      break;
    default:
      if (action) out.action = action;
  }
  return out;
}

/** One line naming the call, and the lines of what it carries (the input, the diff, the code). */
function callLines(c: ToolCallSummary): { title: string; body: string | undefined } {
  const who = c.serverLabel ? `${c.serverLabel}.${c.name ?? ''}` : c.name;
  switch (c.type) {
    case 'function_call':
    case 'mcp_call':
    case 'mcp_approval_request':
      return { title: `${who}(${c.arguments ?? ''})`, body: undefined };
    case 'custom_tool_call':
      return (c.input ?? '').includes('\n') ? { title: `${who} input:`, body: c.input } : { title: `${who}(${c.input ?? ''})`, body: undefined };
    case 'shell_call':
    case 'local_shell_call':
      return (c.commands?.length ?? 0) > 1 ? { title: 'shell:', body: c.commands!.map((l) => `$ ${l}`).join('\n') } : { title: `shell: $ ${c.commands?.[0] ?? '?'}`, body: undefined };
    case 'apply_patch_call':
      return { title: `apply_patch: ${c.operation?.type ?? '?'} ${c.operation?.path ?? ''}`.trimEnd(), body: c.operation?.diff || undefined };
    case 'web_search_call':
      return { title: c.query !== undefined ? `web search: ${JSON.stringify(c.query)}` : c.url ? `web search: open ${c.url}` : `web search${c.action ? ` ${JSON.stringify(c.action)}` : ''}`, body: undefined };
    case 'file_search_call':
      return { title: `file search: ${(c.queries ?? []).map((q) => JSON.stringify(q)).join(', ')}`.trimEnd(), body: undefined };
    case 'code_interpreter_call':
      return { title: 'code interpreter:', body: c.code };
    case 'tool_search_call':
      return { title: `tool search(${c.arguments ?? ''})`, body: undefined };
    default:
      return { title: `${c.type}${c.action !== undefined ? ` ${JSON.stringify(c.action)}` : ''}`, body: undefined };
  }
}

export async function summarise(segment: CaptureSegment, decoded: Decoded): Promise<ResponseSummary> {
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
  const ending = decoded.ending;
  const lines = segment.messages.map((m) => m.line);
  return {
    responseId: last?.id,
    status: ending.kind === 'failed' && ending.eventType === 'error' ? 'failed' : last?.status ?? undefined,
    events: decoded.events.length,
    text: parts.filter((p) => p.kind === 'output_text').map((p) => p.text).join(''),
    parts,
    toolCalls: calls.map(describeCall),
    eventTypes: [...types.values()],
    usage: last?.usage ?? null,
    error: ending.kind === 'failed' ? { eventType: ending.eventType, code: ending.code, message: ending.message, param: ending.param } : null,
    broken: ending.kind === 'broken' ? ending.reason : null,
    lines: [lines[0] ?? 0, lines[lines.length - 1] ?? 0],
  };
}

type ReplayIO = { stdout: NodeJS.WritableStream & { isTTY?: boolean }; stderr: NodeJS.WritableStream; stdin: NodeJS.ReadableStream; env: NodeJS.ProcessEnv };

function render(out: Out, w: (t: string) => void, s: ResponseSummary): void {
  for (const p of s.parts) {
    w(`\n${paint(out, 'bold', p.kind === 'output_text' ? 'Text' : p.kind)} ${paint(out, 'dim', `(output ${p.outputIndex}, part ${p.contentIndex})`)}\n${paint(out, p.kind === 'refusal' ? 'yellow' : 'cyan', p.text)}\n`);
  }
  if (s.toolCalls.length > 0) {
    w(`\n${paint(out, 'bold', 'Tool calls')}\n`);
    for (const c of s.toolCalls) {
      const { title, body } = callLines(c);
      w(`  ${paint(out, 'magenta', title)} ${paint(out, 'dim', `${c.type}, ${c.state}${c.callId ? `, ${c.callId}` : ''}`)}\n`);
      if (body) w(`${body.replace(/\n$/, '').split('\n').map((l) => `    ${l}`).join('\n')}\n`);
    }
  }
  w(`\n${paint(out, 'bold', 'Events')}\n`);
  w(table(s.eventTypes.map((t) => [t.type, String(t.count), t.firstSequence === undefined ? '' : t.firstSequence === t.lastSequence ? String(t.firstSequence) : `${t.firstSequence}–${t.lastSequence}`]), ['type', 'count', 'sequence']));
  if (s.error) {
    w(`\n${paint(out, 'red', 'Error')} ${paint(out, 'dim', `(${s.error.eventType})`)} ${s.error.code ?? '(no code)'}: ${s.error.message}${s.error.param ? ` (param ${s.error.param})` : ''}\n`);
  }
}

export async function runReplay(argv: readonly string[], io: ReplayIO): Promise<number> {
  const a = parse(argv, { to: 'string', json: 'boolean' }, 1);
  const file = a.positionals[0];
  if (file === undefined) throw usage('replay needs a FILE (or - for standard input)');
  const to = a.flags.to;
  if (to !== undefined && to !== 'chat' && to !== 'responses') throw usage(`--to must be chat or responses, got ${JSON.stringify(to)}`);
  if (to !== undefined && a.flags.json) throw usage('--to and --json cannot be combined');
  const name = file === '-' ? '<stdin>' : file;
  const capture = parseCapture(await readCapture(file, io.stdin), name);
  const decoded: Decoded[] = [];
  for (let i = 0; i < capture.segments.length; i++) decoded.push(await decodeSegment(capture, capture.segments[i]!, name, i === capture.segments.length - 1));
  const brokenAt = decoded.find((d) => d.ending.kind === 'broken')?.ending as { reason: string } | undefined;
  const code = brokenAt ? 1 : 0;

  if (to !== undefined) {
    for (const d of decoded) {
      const events$ = from(d.events);
      const body = await lastValueFrom(
        (to === 'chat' ? events$.pipe(toChatKeepingCustomTools(), toChatSSE({ onError: 'event' })) : events$.pipe(toResponsesSSE({ onError: 'event' }))).pipe(toArray()),
      );
      io.stdout.write(body.join(''));
      if (d.ending.kind === 'failed') io.stderr.write(`openai-rx: ${name}: the response failed: ${d.ending.code ?? '(no code)'}: ${d.ending.message}\n`);
    }
    if (brokenAt) io.stderr.write(`openai-rx: ${brokenAt.reason.startsWith(name) ? '' : `${name}: `}${brokenAt.reason}\n`);
    return code;
  }

  const responses: ResponseSummary[] = [];
  for (let i = 0; i < decoded.length; i++) responses.push(await summarise(capture.segments[i]!, decoded[i]!));
  const summary: ReplaySummary = {
    kind: capture.kind,
    format: capture.format,
    events: responses.reduce((n, r) => n + r.events, 0),
    responses,
    broken: brokenAt?.reason ?? null,
  };
  if (a.flags.json) {
    io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    return code;
  }
  const out = outFor(io.stdout, io.env);
  const w = (t: string) => io.stdout.write(t);
  const status = (r: ResponseSummary) =>
    `${r.responseId ? `response ${r.responseId}` : 'no response id'}${r.status ? `, ${paint(out, r.status === 'completed' ? 'green' : r.status === 'failed' ? 'red' : 'yellow', r.status)}` : ''}`;
  const what = `${capture.kind === 'chat' ? 'Chat Completions' : 'Responses'} ${capture.format === 'jsonl' ? 'JSON lines' : 'SSE'}`;
  if (responses.length === 1) {
    w(`${paint(out, 'bold', name)}: ${what}, ${summary.events} events, ${status(responses[0]!)}\n`);
    render(out, w, responses[0]!);
  } else {
    w(`${paint(out, 'bold', name)}: ${what}, ${responses.length} responses, ${summary.events} events\n`);
    responses.forEach((r, i) => {
      w(`\n${paint(out, 'bold', `── Response ${i + 1} of ${responses.length}`)}: ${status(r)}, ${r.events} events ${paint(out, 'dim', `(lines ${r.lines[0]}–${r.lines[1]})`)}\n`);
      render(out, w, r);
    });
  }
  if (brokenAt) io.stderr.write(`openai-rx: ${brokenAt.reason.startsWith(name) ? '' : `${name}: `}${brokenAt.reason}\n`);
  return code;
}
