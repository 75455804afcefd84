// A capture of a stream, as `replay` and `serve` read it: a file or standard input, checked line by line
// (so a broken payload is reported with its line number) and split into its responses.
import { readFile } from 'node:fs/promises';
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
