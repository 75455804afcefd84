import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { ANSWERED } from './calls.js';
import type { AgentInputItem } from './events.js';

const OPENING = new Set(['response.created', 'response.queued', 'response.in_progress']);
const TERMINAL = new Set(['response.completed', 'response.incomplete']);
/** Items the agent answers itself are not part of what the run says to its reader. */
const isShown = (item: unknown): boolean => !ANSWERED.has(String((item as { type?: unknown } | null)?.type));

/**
 * `asOneResponse`: the run as one response of the agent to its reader, for consumers that read a single
 * response (`toChatChunks()` ends at the first terminal event, a client of `toResponsesSSE()` ends at the first
 * terminal and drops repeated sequence numbers).
 * - The first turn's opening events and the last turn's terminal event are kept; those between turns are not.
 * - The calls the agent answers (function, MCP approval, client tools) are left out, with their argument
 *   events: the reader could not answer them anyway (the `agent.*` events report them).
 * - `output_index` numbers the items shown across turns; `sequence_number` numbers the events shown, 0, 1, 2…
 * - The terminal event's `response.output` lists every item shown, of every turn. Response ids stay as sent.
 */
export class OneResponseView {
  private nextIndex = 0;
  private nextSeq = 0;
  /** This turn's output indices: the index shown, or `null` for a hidden call. */
  private indices = new Map<number, number | null>();
  private readonly shown: AgentInputItem[] = [];

  /** A turn ends: its shown items join the response's output. */
  endTurn(items: readonly AgentInputItem[]): void {
    for (const item of items) if (isShown(item)) this.shown.push(item);
    this.indices = new Map();
  }

  /** The event as the one response shows it, or `undefined` when it is left out. `last` says whether this turn ends the run. */
  adapt(e: ResponseStreamEvent, turn: number, last: () => boolean, turnItems: () => readonly AgentInputItem[]): ResponseStreamEvent | undefined {
    if (turn > 1 && OPENING.has(e.type)) return undefined;
    const terminal = TERMINAL.has(e.type);
    if (terminal && !last()) return undefined;
    const rec = e as unknown as Record<string, unknown>;
    const out: Record<string, unknown> = { ...rec };
    const oi = rec['output_index'];
    if (typeof oi === 'number') {
      let index = this.indices.get(oi);
      if (index === undefined) {
        index = 'item' in rec && !isShown(rec['item']) ? null : this.nextIndex++;
        this.indices.set(oi, index);
      }
      if (index === null) return undefined;
      out['output_index'] = index;
    }
    if (typeof rec['sequence_number'] === 'number') out['sequence_number'] = this.nextSeq++;
    const response = rec['response'];
    if (terminal && typeof response === 'object' && response !== null) {
      out['response'] = { ...response, output: [...this.shown, ...turnItems().filter(isShown)] };
    }
    return out as unknown as ResponseStreamEvent;
  }
}
