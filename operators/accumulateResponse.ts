import { Observable, type OperatorFunction } from 'rxjs';
import type { ResponseOutputItem } from '../lib/events/items.js';
import type { Response } from '../lib/events/response.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { asRecord, isIndex, isTerminalType, stringField } from './internal/parts.js';

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

/** Sorted logical indices, one per element of a list with a gap; absent while each index is its position. */
type Keys = number[];

/** The first position in `0..n` whose key is not below `k` (keys ascending). */
function lowerBound(n: number, keyAt: (i: number) => number, k: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyAt(mid) < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A copy of `list` with `f(element)` at logical `index` (earlier values keep the old list). While the
 * indices seen are 0..n-1 the position is the index; after a gap `keys` maps indices to positions, so the
 * cost depends on the list's length, never on the index value.
 */
function place(list: unknown, keys: Keys | undefined, index: number, f: (old: unknown) => unknown): [unknown[], Keys | undefined] {
  const arr: unknown[] = Array.isArray(list) ? list : [];
  let k = keys !== undefined && keys.length === arr.length ? keys : undefined; // a replaced list starts over
  if (k === undefined) {
    if (index <= arr.length) {
      const copy = arr.slice();
      copy[index] = f(arr[index]);
      return [copy, undefined];
    }
    k = [];
    for (let i = 0; i < arr.length; i++) k.push(i);
  }
  const keysNow = k;
  const pos = lowerBound(keysNow.length, (i) => keysNow[i]!, index);
  const copy = arr.slice();
  if (keysNow[pos] === index) {
    copy[pos] = f(arr[pos]);
  } else {
    keysNow.splice(pos, 0, index);
    copy.splice(pos, 0, f(undefined));
  }
  return [copy, keysNow];
}

/** One output item; `keys` holds the index maps of its lists that have gaps (`content`, `annotations:2`, …). */
interface Slot {
  readonly index: number;
  item: Obj;
  keys: Map<string, Keys> | undefined;
}

function setKeys(slot: Slot, name: string, keys: Keys | undefined): void {
  if (keys !== undefined) (slot.keys ??= new Map()).set(name, keys);
  else slot.keys?.delete(name);
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
 * Events are read without trusting their shape (`validate: 'off'` or a hand-built source): one whose index
 * is not a non-negative safe integer, or whose text / item / part is not of its type, is ignored, as
 * unknown events are. Lists stay dense and in index order: parts whose predecessors never streamed (a
 * resume seam, or an index like 1e9) follow the ones before them without holes, so no index costs more
 * than one element.
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
      // A Map and a sorted list of the same slots: lookups and emits cost the number of items, not the index.
      let slots = new Map<number, Slot>();
      let order: Slot[] = [];
      let closed = new Set<number>();

      const reset = (): void => {
        slots = new Map();
        order = [];
      };

      const put = (oi: number, item: Obj, fresh: boolean): Slot => {
        let s = slots.get(oi);
        if (s !== undefined) {
          s.item = item;
          if (fresh) s.keys = undefined;
          return s;
        }
        s = { index: oi, item, keys: undefined };
        slots.set(oi, s);
        const last = order[order.length - 1];
        if (last === undefined || last.index < oi) order.push(s); // items almost always open in order
        else order.splice(lowerBound(order.length, (i) => order[i]!.index, oi), 0, s);
        return s;
      };

      const itemAt = (oi: number, type: string, id: string | undefined): Obj => {
        const it = slots.get(oi)?.item;
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
      const updatePart = (oi: number, itemType: string, itemId: string | undefined, list: 'content' | 'summary', index: number, fresh: () => Obj, f: (p: Obj) => Obj): Slot => {
        const slot = slots.get(oi);
        const it = slot?.item ?? itemAt(oi, itemType, itemId);
        const [parts, keys] = place(it[list], slot?.keys?.get(list), index, (p) => f(isObj(p) ? p : fresh()));
        const s = put(oi, { ...it, [list]: parts }, false);
        setKeys(s, list, keys);
        return s;
      };

      const updateItem = (oi: number, itemType: string, itemId: string | undefined, f: (it: Obj) => Obj): void => {
        put(oi, f(itemAt(oi, itemType, itemId)), false);
      };

      const emit = (): void => {
        const output = new Array<Obj>(order.length);
        for (let i = 0; i < order.length; i++) output[i] = order[i]!.item;
        const b = base ?? { id: '', object: 'response', status: 'in_progress' };
        subscriber.next({ ...b, output: output as unknown as ResponseOutputItem[] } as Response);
      };

      const lifecycle = (type: string, response: unknown): void => {
        const r = isObj(response) ? response : {};
        if (base !== undefined && r['id'] !== base['id'] && base['id'] !== '') {
          reset(); // another response
          closed = new Set();
        }
        base = r;
        const theirs = r['output'];
        if (type === 'response.completed' && (!Array.isArray(theirs) || theirs.length === 0)) {
          // Sent empty after streaming everything: the closed items are the output.
          if (closed.size > 0) {
            const kept = order.filter((s) => closed.has(s.index));
            reset();
            for (let i = 0; i < kept.length; i++) put(kept[i]!.index, kept[i]!.item, true);
          }
          return;
        }
        if (!Array.isArray(theirs)) return;
        if (isTerminalType(type)) reset();
        for (let i = 0; i < theirs.length; i++) {
          const x: unknown = theirs[i];
          if (isObj(x) && !slots.has(i)) put(i, x, true);
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

      // A text delta / done on a content or summary part; ignored unless its indices and text are well-formed.
      const partText = (e: Obj, itemType: string, list: 'content' | 'summary', key: 'text' | 'refusal', partType: string, fresh: () => Obj, s: unknown, isDelta: boolean): boolean => {
        const oi = e['output_index'];
        const ci = e[list === 'content' ? 'content_index' : 'summary_index'];
        if (!isIndex(oi) || !isIndex(ci) || typeof s !== 'string') return false;
        updatePart(oi, itemType, stringField(e, 'item_id'), list, ci, fresh, isDelta ? text(key, partType, s) : setText(key, partType, s));
        return true;
      };

      // An item field streamed by deltas (`arguments`, `input`, `code`) or set by its `.done`.
      const itemText = (e: Obj, itemType: string, key: string, s: unknown, isDelta: boolean, extra?: (it: Obj) => Obj): boolean => {
        const oi = e['output_index'];
        if (!isIndex(oi) || typeof s !== 'string') return false;
        updateItem(oi, itemType, stringField(e, 'item_id'), (it) => {
          const next = isDelta ? appendField(key, s)(it) : setField(key, s)(it);
          return extra ? extra(next) : next;
        });
        return true;
      };

      const apply = (e: Obj): boolean => {
        const type = e['type'];
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
            put(oi, item, true);
            if (type === 'response.output_item.done') closed.add(oi);
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
            const s = updatePart(oi, itemType, stringField(e, 'item_id'), summary ? 'summary' : 'content', ci, () => part, () => part);
            if (!summary) setKeys(s, `annotations:${ci}`, undefined); // the part's own list replaces ours
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
            const annotation = e['annotation'];
            const name = `annotations:${ci}`;
            const before = slots.get(oi)?.keys?.get(name);
            let after: Keys | undefined;
            const s = updatePart(oi, 'message', stringField(e, 'item_id'), 'content', ci, outputTextPart, (p) => {
              const [list, keys] = place(p['annotations'], before, ai, () => annotation);
              after = keys;
              return { ...p, annotations: list };
            });
            setKeys(s, name, after);
            return true;
          }
          case 'response.function_call_arguments.delta':
            return itemText(e, 'function_call', 'arguments', e['delta'], true);
          case 'response.function_call_arguments.done': {
            const name = e['name'];
            return itemText(e, 'function_call', 'arguments', e['arguments'], false, typeof name === 'string' ? setField('name', name) : undefined);
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
            const slot = slots.get(oi);
            let after: Keys | undefined;
            updateItem(oi, 'shell_call', undefined, (it) => {
              const action = isObj(it['action']) ? it['action'] : {};
              const [commands, keys] = place(action['commands'], slot?.keys?.get('commands'), ci, (prev) => (isDelta ? (typeof prev === 'string' ? prev : '') + s : s));
              after = keys;
              return { ...it, action: { ...action, commands } };
            });
            setKeys(slots.get(oi)!, 'commands', after);
            return true;
          }
          default: {
            const st = typeof type === 'string' ? STATUS_EVENTS.get(type) : undefined;
            const oi = e['output_index'];
            if (st === undefined || !isIndex(oi)) return false;
            updateItem(oi, st[0], stringField(e, 'item_id'), setField('status', st[1]));
            return true;
          }
        }
      };

      return source.subscribe({
        next(ev) {
          const e = asRecord(ev);
          if (e !== undefined && apply(e)) emit();
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
    });
}
