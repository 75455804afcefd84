// Where one response ends and the next begins on a stream that carries several (not exported from the package).
import { isTerminalType } from './parts.js';

// The events that carry the whole `response` (`response.cancelled`: see isTerminalType).
const LIFECYCLE = new Set([
  'response.created', 'response.queued', 'response.in_progress', 'response.completed', 'response.incomplete', 'response.failed',
  'response.cancelled', 'response.canceled',
]);

/**
 * Tells, event by event, when a stream moves on to another response: the output of `runAgent` (one response
 * per turn, `agent.*` events between), a WebSocket connection, transcripts played back to back. A response's
 * parts are its own: the operators start afresh at a seam, so two turns' messages at the same `output_index`
 * never mix.
 *
 * An event begins another response when it is
 * - an opening lifecycle event (`created`, `queued`, `in_progress`) naming another `response.id` than the current one;
 * - `response.created` after the current response streamed anything but lifecycle events (its first event
 *   in the API, whatever its id: hand-built streams reuse ids);
 * - any response event after the current response's terminal event (`response.completed` / `.incomplete` /
 *   `.failed` / `error`): nothing of a response follows its terminal event.
 *
 * Events of other types (`agent.*`, unknown ones) never start a response. `sequence_number` is not read:
 * providers skip numbers, a resumed stream goes on from a cursor and hand-built sources have none, while
 * every response the API streams opens with `response.created` and ends with a terminal event.
 */
export class ResponseSeams {
  private id = '';
  private content = false;
  private ended = false;

  /**
   * Whether the current response has streamed content and has not ended: `starts` then answers `false` to any
   * response event that is neither a lifecycle nor a terminal one (a delta), and changes nothing.
   */
  inResponse(): boolean {
    return this.content && !this.ended;
  }

  /** Whether `e` begins another response than the events before it. Call once per event, in order. */
  starts(e: Readonly<Record<string, unknown>>): boolean {
    const type = e['type'];
    if (typeof type !== 'string' || (type !== 'error' && !type.startsWith('response.'))) return false;
    const lifecycle = LIFECYCLE.has(type);
    const id = lifecycle ? idOf(e['response']) : '';
    // A terminal event ends the current response whatever id it names: runAgent's asOneResponse view opens with the
    // first turn's id and ends with the last turn's (the one to continue from).
    const other = id !== '' && this.id !== '' && id !== this.id && !isTerminalType(type);
    const seam = other || this.ended || (type === 'response.created' && this.content);
    if (seam) {
      this.id = '';
      this.content = false;
      this.ended = false;
    }
    if (id !== '') this.id = id;
    if (!lifecycle) this.content = true;
    if (isTerminalType(type)) this.ended = true;
    return seam;
  }
}

function idOf(response: unknown): string {
  if (typeof response !== 'object' || response === null) return '';
  const id = (response as { id?: unknown }).id;
  return typeof id === 'string' ? id : '';
}
