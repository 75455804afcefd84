import { Observable, type OperatorFunction } from 'rxjs';
import type { ResponseOutputItem } from '../lib/events/items.js';
import type { Response } from '../lib/events/response.js';
import type { KnownResponseStreamEvent, ResponseStreamEvent } from '../lib/events/responses.js';
import { field, isTerminalType } from './internal/parts.js';

type Obj = Record<string, unknown>;

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

function isObj(u: unknown): u is Obj {
  return typeof u === 'object' && u !== null && !Array.isArray(u);
}

/**
 * Assembles the `Response` as it streams: after every event that changes it, emits the response so far
 * (id, status, usage and the other fields of the latest lifecycle event; `output` with its items and
 * their content, text and arguments as assembled). The last value equals what a non-streaming request
 * returns. Each value is a new object; unchanged items are shared between values, so keep them freely.
 *
 * The final `output` is the terminal event's, as the API says it. Some backends send `output: []` on
 * `response.completed` after streaming everything: then it is built from the `response.output_item.done`
 * items (authoritative), or from everything assembled when no item closed. A `response.failed` or
 * `.incomplete` keeps its own `output` (possibly `[]`): the value before it still shows what streamed. A stream that starts at `response.in_progress` (a resume) or events
 * after a seam continue the same state; a lifecycle event with a different response id starts afresh.
 * Unknown events are ignored; errors pass through untouched.
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
 * ```
 */
export function accumulateResponse(): OperatorFunction<ResponseStreamEvent, Response> {
  return (source) =>
    new Observable<Response>((subscriber) => {
      let base: Obj | undefined;
      let items: Array<Obj | undefined> = [];
      let closed: boolean[] = [];

      const itemAt = (oi: number, type: string, id: string | undefined): Obj => {
        const it = items[oi];
        if (it !== undefined) return it;
        // The item's `added` was not seen (a resume seam or a terse provider): start from its shape.
        const placeholder: Obj = { id: id ?? '', type, status: 'in_progress' };
        if (type === 'message') {
          placeholder['role'] = 'assistant';
          placeholder['content'] = [];
        } else if (type === 'reasoning') {
          placeholder['summary'] = [];
        } else if (type === 'function_call' || type === 'mcp_call') {
          placeholder['arguments'] = '';
        } else if (type === 'custom_tool_call') {
          placeholder['input'] = '';
        }
        return placeholder;
      };

      // Copies the path to one part: the part, its list, its item (earlier values stay as they were).
      const updatePart = (oi: number, itemType: string, itemId: string, list: 'content' | 'summary', index: number, fresh: () => Obj, f: (p: Obj) => Obj): void => {
        const it = itemAt(oi, itemType, itemId);
        const old = it[list];
        const parts = Array.isArray(old) ? old.slice() : [];
        const p = parts[index] as unknown;
        parts[index] = f(isObj(p) ? p : fresh());
        items[oi] = { ...it, [list]: parts };
      };

      const updateItem = (oi: number, itemType: string, itemId: string | undefined, f: (it: Obj) => Obj): void => {
        items[oi] = f(itemAt(oi, itemType, itemId));
      };

      const emit = (): void => {
        const output: Obj[] = [];
        for (const it of items) if (it !== undefined) output.push(it);
        const b = base ?? { id: '', object: 'response', status: 'in_progress' };
        subscriber.next({ ...b, output: output as unknown as ResponseOutputItem[] } as Response);
      };

      const lifecycle = (e: { type: string; response: unknown }): void => {
        const r = isObj(e.response) ? e.response : {};
        if (base !== undefined && r['id'] !== base['id'] && base['id'] !== '') {
          items = []; // another response
          closed = [];
        }
        base = r;
        const theirs = r['output'];
        if (e.type === 'response.completed' && (!Array.isArray(theirs) || theirs.length === 0)) {
          // Sent empty after streaming everything: the closed items are the output.
          if (closed.some((c) => c)) items = items.filter((_, i) => closed[i] === true);
          return;
        }
        if (!Array.isArray(theirs)) return;
        if (isTerminalType(e.type)) {
          items = (theirs as unknown[]).map((x) => (isObj(x) ? x : undefined));
        } else {
          for (let i = 0; i < theirs.length; i++) {
            const x: unknown = theirs[i];
            if (items[i] === undefined && isObj(x)) items[i] = x;
          }
        }
      };

      const text = (key: 'text' | 'refusal', type: string, d: string) => (p: Obj): Obj => {
        const prev = p[key];
        return { ...p, type, [key]: (typeof prev === 'string' ? prev : '') + d };
      };
      const setText = (key: 'text' | 'refusal', type: string, s: string) => (p: Obj): Obj => ({ ...p, type, [key]: s });
      const appendField = (key: string, d: string) => (it: Obj): Obj => {
        const prev = it[key];
        return { ...it, [key]: (typeof prev === 'string' ? prev : '') + d };
      };
      const setField = (key: string, v: unknown) => (it: Obj): Obj => ({ ...it, [key]: v });
      const outputTextPart = (): Obj => ({ type: 'output_text', text: '', annotations: [] });
      const refusalPart = (): Obj => ({ type: 'refusal', refusal: '' });
      const reasoningPart = (): Obj => ({ type: 'reasoning_text', text: '' });
      const summaryPart = (): Obj => ({ type: 'summary_text', text: '' });

      const apply = (e: KnownResponseStreamEvent): boolean => {
        switch (e.type) {
          case 'response.created':
          case 'response.queued':
          case 'response.in_progress':
          case 'response.completed':
          case 'response.incomplete':
          case 'response.failed':
            lifecycle(e);
            return true;
          case 'response.output_item.added':
          case 'response.output_item.done':
            if (!isObj(e.item)) return false;
            items[e.output_index] = e.item;
            if (e.type === 'response.output_item.done') closed[e.output_index] = true;
            return true;
          case 'response.content_part.added':
          case 'response.content_part.done': {
            const part = e.part as unknown;
            if (!isObj(part)) return false;
            const itemType = part['type'] === 'reasoning_text' ? 'reasoning' : 'message';
            updatePart(e.output_index, itemType, e.item_id, 'content', e.content_index, () => part, () => part);
            return true;
          }
          case 'response.output_text.delta':
            updatePart(e.output_index, 'message', e.item_id, 'content', e.content_index, outputTextPart, text('text', 'output_text', e.delta));
            return true;
          case 'response.output_text.done':
            updatePart(e.output_index, 'message', e.item_id, 'content', e.content_index, outputTextPart, setText('text', 'output_text', e.text));
            return true;
          case 'response.output_text.annotation.added': {
            const annotation = e.annotation;
            updatePart(e.output_index, 'message', e.item_id, 'content', e.content_index, outputTextPart, (p) => {
              const list = Array.isArray(p['annotations']) ? (p['annotations'] as unknown[]).slice() : [];
              list[e.annotation_index] = annotation;
              return { ...p, annotations: list };
            });
            return true;
          }
          case 'response.refusal.delta':
            updatePart(e.output_index, 'message', e.item_id, 'content', e.content_index, refusalPart, text('refusal', 'refusal', e.delta));
            return true;
          case 'response.refusal.done':
            updatePart(e.output_index, 'message', e.item_id, 'content', e.content_index, refusalPart, setText('refusal', 'refusal', e.refusal));
            return true;
          case 'response.reasoning_text.delta':
            updatePart(e.output_index, 'reasoning', e.item_id, 'content', e.content_index, reasoningPart, text('text', 'reasoning_text', e.delta));
            return true;
          case 'response.reasoning_text.done':
            updatePart(e.output_index, 'reasoning', e.item_id, 'content', e.content_index, reasoningPart, setText('text', 'reasoning_text', e.text));
            return true;
          case 'response.reasoning_summary_part.added':
          case 'response.reasoning_summary_part.done': {
            const part = e.part as unknown;
            if (!isObj(part)) return false;
            updatePart(e.output_index, 'reasoning', e.item_id, 'summary', e.summary_index, () => part, () => part);
            return true;
          }
          case 'response.reasoning_summary_text.delta':
            updatePart(e.output_index, 'reasoning', e.item_id, 'summary', e.summary_index, summaryPart, text('text', 'summary_text', e.delta));
            return true;
          case 'response.reasoning_summary_text.done':
            updatePart(e.output_index, 'reasoning', e.item_id, 'summary', e.summary_index, summaryPart, setText('text', 'summary_text', e.text));
            return true;
          case 'response.function_call_arguments.delta':
            updateItem(e.output_index, 'function_call', e.item_id, appendField('arguments', e.delta));
            return true;
          case 'response.function_call_arguments.done':
            updateItem(e.output_index, 'function_call', e.item_id, (it) => ({ ...it, arguments: e.arguments, ...(e.name !== undefined && { name: e.name }) }));
            return true;
          case 'response.custom_tool_call_input.delta':
            updateItem(e.output_index, 'custom_tool_call', e.item_id, appendField('input', e.delta));
            return true;
          case 'response.custom_tool_call_input.done':
            updateItem(e.output_index, 'custom_tool_call', e.item_id, setField('input', e.input));
            return true;
          case 'response.mcp_call_arguments.delta':
            updateItem(e.output_index, 'mcp_call', e.item_id, appendField('arguments', e.delta));
            return true;
          case 'response.mcp_call_arguments.done':
            updateItem(e.output_index, 'mcp_call', e.item_id, setField('arguments', e.arguments));
            return true;
          case 'response.code_interpreter_call_code.delta':
            updateItem(e.output_index, 'code_interpreter_call', e.item_id, appendField('code', e.delta));
            return true;
          case 'response.code_interpreter_call_code.done':
            updateItem(e.output_index, 'code_interpreter_call', e.item_id, setField('code', e.code));
            return true;
          case 'response.shell_call_command.added':
          case 'response.shell_call_command.delta':
          case 'response.shell_call_command.done': {
            const ci = e.command_index;
            const next = e.type === 'response.shell_call_command.delta' ? undefined : e.command;
            const d = e.type === 'response.shell_call_command.delta' ? e.delta : '';
            updateItem(e.output_index, 'shell_call', undefined, (it) => {
              const action = isObj(it['action']) ? it['action'] : {};
              const commands = Array.isArray(action['commands']) ? (action['commands'] as unknown[]).slice() : [];
              const prev = commands[ci];
              commands[ci] = next ?? (typeof prev === 'string' ? prev : '') + d;
              return { ...it, action: { ...action, commands } };
            });
            return true;
          }
          default: {
            const s = STATUS_EVENTS.get(e.type);
            if (s === undefined) return false;
            const oi = field(e, 'output_index');
            if (typeof oi !== 'number') return false;
            updateItem(oi, s[0], field(e, 'item_id') as string | undefined, setField('status', s[1]));
            return true;
          }
        }
      };

      return source.subscribe({
        next(ev) {
          if (apply(ev as KnownResponseStreamEvent)) emit();
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    });
}
