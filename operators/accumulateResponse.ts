import { Observable, type OperatorFunction } from 'rxjs';
import type { Response } from '../lib/events/response.js';
import type { ResponseOutputItem } from '../lib/events/items.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { grow as growText, type Growth } from './internal/grow.js';
import { ItemBook } from './internal/items.js';
import { asRecord, isIndex, isTerminalType, stringField } from './internal/parts.js';
import { ResponseSeams } from './internal/response-seams.js';
import { isObj, ResponseOutput, type Obj } from './internal/response-output.js';

// Hosted-call progress events only move the item's status.
const STATUS_EVENTS: ReadonlyMap<string, readonly [string, string]> = new Map([
  ['response.file_search_call.in_progress', ['file_search_call', 'in_progress']],
  ['response.file_search_call.searching', ['file_search_call', 'searching']],
  ['response.file_search_call.completed', ['file_search_call', 'completed']],
  ['response.web_search_call.in_progress', ['web_search_call', 'in_progress']],
  ['response.web_search_call.searching', ['web_search_call', 'searching']],
  ['response.web_search_call.completed', ['web_search_call', 'completed']],
  ['response.code_interpreter_call.in_progress', ['code_interpreter_call', 'in_progress']],
  ['response.code_interpreter_call.interpreting', ['code_interpreter_call', 'interpreting']],
  ['response.code_interpreter_call.completed', ['code_interpreter_call', 'completed']],
  ['response.image_generation_call.in_progress', ['image_generation_call', 'in_progress']],
  ['response.image_generation_call.generating', ['image_generation_call', 'generating']],
  ['response.image_generation_call.completed', ['image_generation_call', 'completed']],
  ['response.mcp_call.in_progress', ['mcp_call', 'in_progress']],
  ['response.mcp_call.completed', ['mcp_call', 'completed']],
  ['response.mcp_call.failed', ['mcp_call', 'failed']],
]);

/** A `Response` as `accumulateResponse()` emits it: `output` is always there, an array (possibly empty). */
export type AssembledResponse = Response & { output: ResponseOutputItem[] };

/**
 * Assembles the `Response` as it streams: after every event that changes it, emits the response so far
 * (id, status, usage and the other fields of the latest lifecycle event; `output` with its items and
 * their content, text and arguments as assembled). The last value equals what a non-streaming request
 * returns. Each value is a new object; unchanged items and parts are shared between values (the same
 * object, by reference), and a value never changes once emitted, so keep them freely.
 *
 * Cost: an event costs the same whatever the number of items, content parts or annotations so far (only the
 * path to what changed is copied; the lists are persistent vectors), and a text or argument delta costs
 * the same whatever the length of its string. So that emitting stays O(1), a list longer than 32 (`output`,
 * an item's `content` / `summary`, a part's `annotations`) is an enumerable accessor that builds the plain
 * array the first time it is read (then a data property): JSON, spreading, `structuredClone` and equality
 * see an ordinary array; reading it costs its length, once per value.
 *
 * The terminal event's items are authoritative: each replaces the item it matches, by `id` (never by
 * list position alone: a provider may leave out or reorder items that streamed), and items it leaves out
 * stay as they streamed, in `output_index` order. So `output: []` on `response.completed` or `.incomplete`
 * after streaming everything keeps what was assembled. A `response.failed` keeps its own `output` (possibly
 * `[]`): the value before it still shows what streamed. A stream that starts at `response.in_progress` (a
 * resume) or events after a seam continue the same state.
 *
 * Several responses on one stream (`runAgent`'s turns, a WebSocket connection): each value is the current
 * response's snapshot, its output only its own. Another response begins at `response.created`, at a
 * `queued` / `in_progress` event naming another response id, or at the first response event after a terminal
 * event (see `accumulateText`); `agent.*` events between turns change nothing. To keep every turn, collect the
 * terminal values (e.g. `filter((r) => r.status !== 'in_progress')`).
 *
 * A hosted shell's output (`shell_call_output_content.delta` / `.done`) goes into the `shell_call_output`
 * item's `output`, one content per command. Unknown events are ignored; errors pass through untouched.
 *
 * Events are read without trusting their shape (`validate: 'off'` or a hand-built source): one whose index
 * is not a non-negative safe integer, or whose text / item / part is not of its type, or that is aimed at
 * an item of another type (shell output at a message), is ignored, as unknown events are. Lists stay dense
 * and in index order: parts whose predecessors never streamed (a resume seam, or an index like 1e9) follow
 * the ones before them without holes, so no index costs more than one element.
 *
 * ```
 * events:  --created--added--d(Hi)--item.done--completed--|
 *   accumulateResponse()
 * out:     --a--------b------c------d----------e----------|
 *   c = { id, status: 'in_progress', output: [{ type: 'message', content: [{ text: 'Hi' }] }] }
 *   e = { id, status: 'completed', output: [...], usage: {...} }
 * ```
 *
 * ```ts
 * const final = await lastValueFrom(events$.pipe(accumulateResponse()));
 * final.output.length; // `output` is always an array (possibly empty), never undefined
 * ```
 */
export function accumulateResponse(): OperatorFunction<ResponseStreamEvent, AssembledResponse> {
  return (source) =>
    new Observable<AssembledResponse>((subscriber) => {
      let base: Obj | undefined;
      const out = new ResponseOutput();
      const book = new ItemBook();

      const emit = (): void => {
        const snapshot: Obj = { ...(base ?? { id: '', object: 'response', status: 'in_progress' }) };
        out.attach(snapshot); // O(1) however many items: see ResponseOutput
        subscriber.next(snapshot as unknown as AssembledResponse);
      };

      const seams = new ResponseSeams();

      const lifecycle = (type: string, response: unknown): void => {
        const r = isObj(response) ? response : {};
        base = r;
        const theirs = r['output'];
        if (!Array.isArray(theirs)) return;
        if (type === 'response.failed') out.reset(); // a failed response's output is its own, even []
        // The API's items replace ours on a terminal event; before it they only fill what did not stream.
        const replace = isTerminalType(type);
        const at = book.place(theirs);
        for (let i = 0; i < theirs.length; i++) {
          const x: unknown = theirs[i];
          if (!isObj(x) || (!replace && out.has(at[i]!))) continue;
          out.put(at[i]!, x);
          book.noteItem(at[i]!, x);
        }
      };

      const id = (e: Obj): string | undefined => stringField(e, 'item_id');
      const outputTextPart = (): Obj => ({ type: 'output_text', text: '', annotations: [] });
      const refusalPart = (): Obj => ({ type: 'refusal', refusal: '' });
      const reasoningPart = (): Obj => ({ type: 'reasoning_text', text: '' });
      const summaryPart = (): Obj => ({ type: 'summary_text', text: '' });
      const grow = (g: Growth, prev: unknown, d: string): string => growText(g, typeof prev === 'string' ? prev : '', d);

      // A text delta / done on a content or summary part; ignored unless its indices and text are well-formed.
      const partText = (e: Obj, itemType: string, list: 'content' | 'summary', key: 'text' | 'refusal', partType: string, fresh: () => Obj, s: unknown, isDelta: boolean): boolean => {
        const oi = e['output_index'];
        const ci = e[list === 'content' ? 'content_index' : 'summary_index'];
        if (!isIndex(oi) || !isIndex(ci) || typeof s !== 'string') return false;
        out.updatePart(oi, itemType, id(e), list, ci, fresh, (p, g) => ({ ...p, type: partType, [key]: isDelta ? grow(g, p[key], s) : s }));
        return true;
      };

      // An item field streamed by deltas (`arguments`, `input`, `code`) or set by its `.done`.
      const itemText = (e: Obj, itemType: string, key: string, s: unknown, isDelta: boolean, extra?: Obj): boolean => {
        const oi = e['output_index'];
        if (!isIndex(oi) || typeof s !== 'string') return false;
        out.updateItem(oi, itemType, id(e), (it, g) => ({ ...it, [key]: isDelta ? grow(g, it[key], s) : s, ...extra }));
        return true;
      };

      const apply = (e: Obj): boolean => {
        const type = e['type'];
        if (!book.admits(e)) return false; // aimed at an item of another type
        switch (type) {
          case 'response.created':
          case 'response.queued':
          case 'response.in_progress':
          case 'response.completed':
          case 'response.incomplete':
          case 'response.failed':
            lifecycle(type, e['response']);
            return true;
          case 'response.output_item.added':
          case 'response.output_item.done': {
            const oi = e['output_index'];
            const item = e['item'];
            if (!isIndex(oi) || !isObj(item)) return false;
            out.put(oi, item);
            book.noteItem(oi, item);
            return true;
          }
          case 'response.content_part.added':
          case 'response.content_part.done':
          case 'response.reasoning_summary_part.added':
          case 'response.reasoning_summary_part.done': {
            const part = e['part'];
            const summary = type === 'response.reasoning_summary_part.added' || type === 'response.reasoning_summary_part.done';
            const oi = e['output_index'];
            const ci = e[summary ? 'summary_index' : 'content_index'];
            if (!isIndex(oi) || !isIndex(ci) || !isObj(part)) return false;
            const itemType = summary || part['type'] === 'reasoning_text' ? 'reasoning' : 'message';
            out.replacePart(oi, itemType, id(e), summary ? 'summary' : 'content', ci, part);
            return true;
          }
          case 'response.output_text.delta':
            return partText(e, 'message', 'content', 'text', 'output_text', outputTextPart, e['delta'], true);
          case 'response.output_text.done':
            return partText(e, 'message', 'content', 'text', 'output_text', outputTextPart, e['text'], false);
          case 'response.refusal.delta':
            return partText(e, 'message', 'content', 'refusal', 'refusal', refusalPart, e['delta'], true);
          case 'response.refusal.done':
            return partText(e, 'message', 'content', 'refusal', 'refusal', refusalPart, e['refusal'], false);
          case 'response.reasoning_text.delta':
            return partText(e, 'reasoning', 'content', 'text', 'reasoning_text', reasoningPart, e['delta'], true);
          case 'response.reasoning_text.done':
            return partText(e, 'reasoning', 'content', 'text', 'reasoning_text', reasoningPart, e['text'], false);
          case 'response.reasoning_summary_text.delta':
            return partText(e, 'reasoning', 'summary', 'text', 'summary_text', summaryPart, e['delta'], true);
          case 'response.reasoning_summary_text.done':
            return partText(e, 'reasoning', 'summary', 'text', 'summary_text', summaryPart, e['text'], false);
          case 'response.output_text.annotation.added': {
            const oi = e['output_index'];
            const ci = e['content_index'];
            const ai = e['annotation_index'];
            if (!isIndex(oi) || !isIndex(ci) || !isIndex(ai)) return false;
            out.annotate(oi, id(e), ci, ai, e['annotation'], outputTextPart);
            return true;
          }
          case 'response.function_call_arguments.delta':
            return itemText(e, 'function_call', 'arguments', e['delta'], true);
          case 'response.function_call_arguments.done': {
            const name = e['name'];
            return itemText(e, 'function_call', 'arguments', e['arguments'], false, typeof name === 'string' ? { name } : undefined);
          }
          case 'response.custom_tool_call_input.delta':
            return itemText(e, 'custom_tool_call', 'input', e['delta'], true);
          case 'response.custom_tool_call_input.done':
            return itemText(e, 'custom_tool_call', 'input', e['input'], false);
          case 'response.mcp_call_arguments.delta':
            return itemText(e, 'mcp_call', 'arguments', e['delta'], true);
          case 'response.mcp_call_arguments.done':
            return itemText(e, 'mcp_call', 'arguments', e['arguments'], false);
          case 'response.code_interpreter_call_code.delta':
            return itemText(e, 'code_interpreter_call', 'code', e['delta'], true);
          case 'response.code_interpreter_call_code.done':
            return itemText(e, 'code_interpreter_call', 'code', e['code'], false);
          case 'response.shell_call_command.added':
          case 'response.shell_call_command.delta':
          case 'response.shell_call_command.done': {
            const oi = e['output_index'];
            const ci = e['command_index'];
            const isDelta = type === 'response.shell_call_command.delta';
            const s = e[isDelta ? 'delta' : 'command'];
            if (!isIndex(oi) || !isIndex(ci) || typeof s !== 'string') return false;
            out.updateNested(oi, 'shell_call', 'action', 'commands', ci, (prev) => (isDelta ? (typeof prev === 'string' ? prev : '') + s : s));
            return true;
          }
          case 'response.shell_call_output_content.delta':
          case 'response.shell_call_output_content.done':
            return shellOutput(out, e, type === 'response.shell_call_output_content.delta');
          default: {
            const st = typeof type === 'string' ? STATUS_EVENTS.get(type) : undefined;
            const oi = e['output_index'];
            if (st === undefined || !isIndex(oi)) return false;
            out.updateItem(oi, st[0], id(e), (it) => ({ ...it, status: st[1] }));
            return true;
          }
        }
      };

      return source.subscribe({
        next(ev) {
          // An event whose fields throw when read (a getter, a Proxy) ends the stream: thrown from here it would
          // escape as an uncaught exception.
          try {
            const e = asRecord(ev);
            if (e === undefined) return;
            if (seams.starts(e)) {
              // Another response: its snapshots show only its own output.
              base = undefined;
              out.reset();
              book.clear();
            }
            if (apply(e)) emit();
          } catch (err) {
            subscriber.error(err);
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    });
}

/**
 * A shell command's output: `stdout` / `stderr` grow with each delta; the `.done` content (the first of its
 * `output`) replaces it. Kept in the item's `output`, one content per `command_index`.
 */
function shellOutput(out: ResponseOutput, e: Obj, isDelta: boolean): boolean {
  const oi = e['output_index'];
  const ci = e['command_index'];
  if (!isIndex(oi) || !isIndex(ci)) return false;
  let f: (prev: unknown) => unknown;
  if (isDelta) {
    const d = e['delta'];
    const stdout = isObj(d) && typeof d['stdout'] === 'string' ? d['stdout'] : undefined;
    const stderr = isObj(d) && typeof d['stderr'] === 'string' ? d['stderr'] : undefined;
    if (stdout === undefined && stderr === undefined) return false;
    f = (prev) => {
      const p = isObj(prev) ? prev : {};
      const grow = (key: string, s: string | undefined): string => (typeof p[key] === 'string' ? (p[key] as string) : '') + (s ?? '');
      return { ...p, stdout: grow('stdout', stdout), stderr: grow('stderr', stderr) };
    };
  } else {
    const list = e['output'];
    const content: unknown = Array.isArray(list) ? list[0] : undefined;
    if (!isObj(content)) return false;
    f = () => content;
  }
  out.updateList(oi, 'shell_call_output', stringField(e, 'item_id'), 'output', ci, f);
  return true;
}
