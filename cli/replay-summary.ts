// What `replay` tells of a response: its text parts, its tool calls (what matters of each kind), its events
// by type, its usage and how it ended, as JSON (the summary) or as text for a terminal.
import { from, lastValueFrom, toArray } from 'rxjs';
import { accumulateResponse, accumulateText, collectToolCalls, type TextSnapshot, type ToolCall } from '../index.js';
import type { CaptureSegment } from './capture.js';
import type { Decoded } from './capture-decode.js';
import { paint, table, type Out } from './style.js';

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

/** A response's parts, tool calls, events and error, for a terminal. */
export function render(out: Out, w: (t: string) => void, s: ResponseSummary): void {
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
