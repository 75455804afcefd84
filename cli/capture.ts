// A capture of a stream, as `replay` and `serve` read it: a file or standard input, checked line by line
// (so a broken payload is reported with its line number) and split into its responses.
import { readFile } from 'node:fs/promises';
import { scanSSEText } from '../lib/sse/text.js';
import { CLIError } from './args.js';

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

/** The fields an SSE line may set (`''` is a comment); any other line is not SSE. */
const SSE_FIELDS = new Set(['', 'data', 'event', 'id', 'retry']);

interface Read {
  readonly messages: CaptureMessage[];
  cutAtLine: number | undefined;
}

/**
 * A message's payload, `'cut'` when it does not parse and may have been cut short, `undefined` for a provider's
 * error report in plain text; a broken one is a one-line error naming `where` (file and line).
 */
function payloadOf(data: string, where: string, event: string | undefined, mayBeCut: boolean): Record<string, unknown> | undefined | 'cut' {
  let v: unknown;
  try {
    v = JSON.parse(data);
  } catch {
    if (mayBeCut) return 'cut';
    // A provider's error report may be plain text after `event: error`: the decoder reads it.
    if (event === 'error') return undefined;
    throw new CLIError(`${where}: not valid JSON (${data.length} characters)`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    if (event === 'error') return undefined;
    throw new CLIError(`${where}: not a JSON object`);
  }
  const o = v as Record<string, unknown>;
  if (typeof o['type'] !== 'string' && !isChatChunk(o) && o['error'] === undefined && event !== 'error') {
    throw new CLIError(`${where}: an event needs a "type" (or a chat chunk's "object")`);
  }
  return o;
}

/** One JSON event or chunk per line (its lines ended as the SSE scanner ends them: CR, LF or CRLF). */
function readJSONLines(input: string, name: string): Read {
  const read: Read = { messages: [], cutAtLine: undefined };
  scanSSEText(input, {
    onMessage: () => undefined,
    onLine: (l) => {
      const t = l.text.trim();
      if (read.cutAtLine !== undefined || t === '' || t === '[DONE]' || t === 'data: [DONE]') return;
      const p = payloadOf(t, `${name}:${l.number}`, undefined, !l.terminated);
      if (p === 'cut') read.cutAtLine = l.number;
      else read.messages.push({ line: l.number, event: undefined, data: t, payload: p });
    },
  });
  return read;
}

/** A body saved by `curl -N`, read by the package's SSE scanner, each line checked to be SSE. */
function readSSE(input: string, name: string): Read {
  const read: Read = { messages: [], cutAtLine: undefined };
  let openLine: number | undefined; // the last line, when the capture ends inside it: it may be cut
  scanSSEText(input, {
    onLine: (l) => {
      if (read.cutAtLine !== undefined || l.field === undefined) return;
      if (!l.terminated) openLine = l.number;
      const known = SSE_FIELDS.has(l.field);
      // An event name with nothing after it, or a line cut before it could be read: where the capture was cut.
      if (!l.terminated && (l.field === 'event' || !known)) read.cutAtLine = l.number;
      else if (!known) throw new CLIError(`${name}:${l.number}: not an SSE line (expected event:, data:, id: or a blank line)`);
    },
    onMessage: (m) => {
      if (read.cutAtLine !== undefined) return;
      if (m.data.trim() === '[DONE]') {
        read.messages.push({ line: m.line, event: m.event, data: '[DONE]', payload: undefined });
        return;
      }
      const p = payloadOf(m.data, `${name}:${m.firstDataLine}`, m.event, m.lastDataLine === openLine);
      if (p === 'cut') read.cutAtLine = m.lastDataLine;
      else read.messages.push({ line: m.line, event: m.event, data: m.data, payload: p });
    },
  });
  return read;
}

/**
 * Checks a capture line by line (so a broken payload is reported with its line number) and splits it into
 * responses: a body saved by `curl -N` (`event:`/`data:` lines), or one JSON event or chunk per line. A byte
 * order mark is skipped; a last line without its line end that does not parse is where the capture was cut.
 */
export function parseCapture(input: string, name: string): Capture {
  if (input.trim() === '') throw new CLIError(`${name}: empty capture`);
  const format: Capture['format'] = input.trimStart().startsWith('{') ? 'jsonl' : 'sse';
  const { messages, cutAtLine } = format === 'jsonl' ? readJSONLines(input, name) : readSSE(input, name);
  if (messages.every((m) => m.payload === undefined && m.event !== 'error')) {
    throw new CLIError(cutAtLine !== undefined ? `${name}:${cutAtLine}: the capture was cut in the middle of its first event` : `${name}: no events in the capture`);
  }
  const kind = messages.some((m) => m.payload !== undefined && isChatChunk(m.payload)) ||
    (messages.some((m) => m.data === '[DONE]') && !messages.some((m) => typeof m.payload?.['type'] === 'string'))
    ? 'chat'
    : 'responses';
  const segments = segmentsOf(messages, kind);
  // As recorded when whole (the BOM, if any, is the scanner's to skip, as every reader of it does).
  const sse = format === 'sse' && cutAtLine === undefined ? input : segments.map((s) => s.sse).join('');
  return { kind, format, sse, segments, cutAtLine };
}
