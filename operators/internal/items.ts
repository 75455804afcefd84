// What the operators know of the items of one response, by output_index (not exported from the package).
import { field, isIndex, stringField } from './parts.js';

/** The item type each item-scoped event belongs to (content parts are told apart by their part's type). */
const EVENT_ITEM_TYPES: ReadonlyMap<string, string> = new Map([
  ['response.output_text.delta', 'message'],
  ['response.output_text.done', 'message'],
  ['response.output_text.annotation.added', 'message'],
  ['response.refusal.delta', 'message'],
  ['response.refusal.done', 'message'],
  ['response.reasoning_text.delta', 'reasoning'],
  ['response.reasoning_text.done', 'reasoning'],
  ['response.reasoning_summary_part.added', 'reasoning'],
  ['response.reasoning_summary_part.done', 'reasoning'],
  ['response.reasoning_summary_text.delta', 'reasoning'],
  ['response.reasoning_summary_text.done', 'reasoning'],
  ['response.function_call_arguments.delta', 'function_call'],
  ['response.function_call_arguments.done', 'function_call'],
  ['response.custom_tool_call_input.delta', 'custom_tool_call'],
  ['response.custom_tool_call_input.done', 'custom_tool_call'],
  ['response.mcp_call_arguments.delta', 'mcp_call'],
  ['response.mcp_call_arguments.done', 'mcp_call'],
  ['response.mcp_call.in_progress', 'mcp_call'],
  ['response.mcp_call.completed', 'mcp_call'],
  ['response.mcp_call.failed', 'mcp_call'],
  ['response.mcp_list_tools.in_progress', 'mcp_list_tools'],
  ['response.mcp_list_tools.completed', 'mcp_list_tools'],
  ['response.mcp_list_tools.failed', 'mcp_list_tools'],
  ['response.file_search_call.in_progress', 'file_search_call'],
  ['response.file_search_call.searching', 'file_search_call'],
  ['response.file_search_call.completed', 'file_search_call'],
  ['response.web_search_call.in_progress', 'web_search_call'],
  ['response.web_search_call.searching', 'web_search_call'],
  ['response.web_search_call.completed', 'web_search_call'],
  ['response.code_interpreter_call.in_progress', 'code_interpreter_call'],
  ['response.code_interpreter_call.interpreting', 'code_interpreter_call'],
  ['response.code_interpreter_call.completed', 'code_interpreter_call'],
  ['response.code_interpreter_call_code.delta', 'code_interpreter_call'],
  ['response.code_interpreter_call_code.done', 'code_interpreter_call'],
  ['response.image_generation_call.in_progress', 'image_generation_call'],
  ['response.image_generation_call.generating', 'image_generation_call'],
  ['response.image_generation_call.completed', 'image_generation_call'],
  ['response.image_generation_call.partial_image', 'image_generation_call'],
  ['response.shell_call_command.added', 'shell_call'],
  ['response.shell_call_command.delta', 'shell_call'],
  ['response.shell_call_command.done', 'shell_call'],
  ['response.shell_call_output_content.delta', 'shell_call_output'],
  ['response.shell_call_output_content.done', 'shell_call_output'],
]);

/** The type of item an event targets, or `undefined` for an event not scoped to one item. */
export function itemTypeOf(e: Readonly<Record<string, unknown>>): string | undefined {
  const type = e['type'];
  if (typeof type !== 'string') return undefined;
  if (type === 'response.content_part.added' || type === 'response.content_part.done') {
    return field(e['part'], 'type') === 'reasoning_text' ? 'reasoning' : 'message';
  }
  return EVENT_ITEM_TYPES.get(type);
}

/**
 * The type and ids of each item of a response, by `output_index`. Item-scoped events are admitted only
 * for an item of their own type, and the terminal response's `output` is matched to the streamed items
 * by id, never by its array position alone (a provider may leave out or reorder items that streamed).
 * Size: one type per item and a few ids each (the ids of its whole items and the first `item_id` seen).
 */
export class ItemBook {
  private types = new Map<number, string>();
  private ids = new Map<string, number>();
  private named = new Set<number>();
  private max = -1;
  private lastIndex = -1;
  private lastType = '';
  private lastEvent: unknown = undefined;
  private lastExpected: string | undefined = undefined;

  /** An item seen whole (`output_item.added` / `.done`, a lifecycle event's output): its type is authoritative. */
  noteItem(oi: number, item: unknown): void {
    const type = field(item, 'type');
    if (typeof type === 'string') this.setType(oi, type);
    const id = stringField(item, 'id');
    if (id !== undefined) this.name(oi, id);
  }

  /**
   * Whether an event may apply: `true` unless it targets, by a valid `output_index`, an item known to be
   * of another type. An item not known yet is taken to be of the event's type (its `added` was not seen).
   */
  admits(e: Readonly<Record<string, unknown>>): boolean {
    const oi = e['output_index'];
    if (!isIndex(oi)) return true; // the operator decides what a bad index means
    let expected: string | undefined;
    const type = e['type'];
    if (type === this.lastEvent) {
      expected = this.lastExpected; // events come in runs of one type
    } else {
      expected = itemTypeOf(e);
      if (type !== 'response.content_part.added' && type !== 'response.content_part.done') {
        this.lastEvent = type;
        this.lastExpected = expected;
      }
    }
    if (expected === undefined) return true;
    if (oi === this.lastIndex) return this.lastType === expected; // deltas come in runs on one item
    const known = this.types.get(oi);
    if (known === undefined) {
      this.setType(oi, expected);
      const id = e['item_id'];
      if (typeof id === 'string' && !this.named.has(oi)) this.name(oi, id);
      return true;
    }
    this.lastIndex = oi;
    this.lastType = known;
    return known === expected;
  }

  /**
   * Whether `admits` would take an event of `type` at `oi` without learning anything: the run of one event type on
   * one item goes on (see TextAccumulation.continues). `false` says nothing: the event is then to go through `admits`.
   */
  inRun(type: string, oi: number): boolean {
    return type === this.lastEvent && oi === this.lastIndex && this.lastType === this.lastExpected;
  }

  typeAt(oi: number): string | undefined {
    return this.types.get(oi);
  }

  /**
   * The output_index of each item of a response's `output`, in list order. An item is matched by its `id`
   * to the item streamed under it. One whose id never streamed takes its position when no streamed item
   * holds that index or the one there is of its type and unmatched (a rotated id), and otherwise the next
   * free index after every known one. Each index is given once.
   */
  place(output: readonly unknown[]): number[] {
    const at = new Array<number>(output.length);
    const taken = new Set<number>();
    const pending: number[] = [];
    for (let i = 0; i < output.length; i++) {
      const id = stringField(output[i], 'id');
      const oi = id === undefined ? undefined : this.ids.get(id);
      if (oi !== undefined && !taken.has(oi)) {
        at[i] = oi;
        taken.add(oi);
      } else {
        pending.push(i);
      }
    }
    let next = this.max + 1;
    for (const i of pending) {
      const known = this.types.get(i);
      if (!taken.has(i) && (known === undefined || known === field(output[i], 'type'))) {
        at[i] = i;
      } else {
        while (taken.has(next)) next++;
        at[i] = next++;
      }
      taken.add(at[i]!);
    }
    return at;
  }

  clear(): void {
    this.types = new Map();
    this.ids = new Map();
    this.named = new Set();
    this.lastIndex = -1;
    this.max = -1;
  }

  private setType(oi: number, type: string): void {
    this.types.set(oi, type);
    if (oi > this.max) this.max = oi;
    if (oi === this.lastIndex) this.lastType = type;
  }

  private name(oi: number, id: string): void {
    this.ids.set(id, oi);
    this.named.add(oi);
  }
}
