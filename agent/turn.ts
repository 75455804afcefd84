import { map, type Observable } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { retrieveResponseStream, streamResponse, type ResponseCreateParams, type ResponsesStreamConfig } from '../lib/http/transports.js';
import { streamResponseOverSocket } from '../lib/ws/response.js';
import type { LaneSocket } from '../lib/ws/types.js';
import { resumeFrom, type AutoResumeOptions, type Reconnect } from '../operators/resumeFrom.js';
import type { AgentInputItem } from './events.js';

/** What a turn's transport is told besides the request body. */
export interface TurnContext {
  /** 1-based. */
  readonly turn: number;
}

/**
 * Sends one turn's request and streams its events, completing after its terminal event. `runAgent` builds one
 * from `config` (HTTP) or `socket` (a WebSocket lane); pass your own (a scripted model in a test, a proxy) as
 * `transport`. Unsubscribing must abort the request.
 */
export type TurnTransport = (body: ResponseCreateParams, context: TurnContext) => Observable<ResponseStreamEvent>;

/**
 * Each turn is `POST /responses` (`streamResponse`), through `resumeFrom` when `resume` is given: a retryable
 * interruption resumes the turn where it broke off.
 */
export function httpTransport(config: ResponsesStreamConfig | undefined, resume?: AutoResumeOptions): TurnTransport {
  return (body) => {
    const events = streamResponse(body, config);
    if (!resume) return events;
    const reconnect: Reconnect = resume.reconnect ?? ((c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config));
    return events.pipe(resumeFrom(reconnect, resume));
  };
}

/**
 * Each turn is a `response.create` on the socket's lane `streamId` (FIFO, so the turns of one agent never
 * overlap, and they continue with `previous_response_id` on the same connection, as WebSocket mode intends).
 * `stream` and `background` are HTTP-only fields and are not sent.
 */
export function socketTransport(socket: LaneSocket, streamId: string | undefined): TurnTransport {
  return (body) => {
    const { stream: _stream, background: _background, ...rest } = body as Record<string, unknown>;
    const create = streamId === undefined ? rest : { ...rest, stream_id: streamId };
    return streamResponseOverSocket(socket, create).pipe(map((e) => e as ResponseStreamEvent));
  };
}

type Item = AgentInputItem & { readonly type: string };

/** What one turn said: its response id, its output items (the authoritative `.done` ones), how it ended. */
export class TurnRecord {
  responseId: string | undefined;
  terminal: string | undefined;
  private readonly streamed = new Map<number, Item>();
  private final: Item[] | undefined;

  see(e: ResponseStreamEvent): void {
    const response = (e as { response?: { id?: unknown; output?: unknown } }).response;
    if (response && typeof response === 'object') {
      if (typeof response.id === 'string') this.responseId = response.id;
      if (e.type === 'response.completed' || e.type === 'response.incomplete') {
        this.terminal = e.type;
        if (Array.isArray(response.output) && response.output.length > 0) this.final = response.output.filter(isItem);
      }
    } else if (e.type === 'response.output_item.done') {
      const { output_index: index, item } = e as { output_index?: unknown; item?: unknown };
      if (typeof index === 'number' && isItem(item)) this.streamed.set(index, item);
    }
  }

  /** The response's output items: those of the final response, else the streamed ones in output order. */
  items(): Item[] {
    if (this.final) return this.final.map(withoutStreamId);
    return [...this.streamed.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => withoutStreamId(item));
  }
}

function isItem(u: unknown): u is Item {
  return typeof u === 'object' && u !== null && typeof (u as { type?: unknown }).type === 'string';
}

function withoutStreamId(item: Item): Item {
  if (!('stream_id' in item)) return item;
  const { stream_id: _s, ...rest } = item;
  return rest as Item;
}

/** The text of the messages among `items`, joined in order. */
export function outputTextOf(items: readonly AgentInputItem[]): string {
  let text = '';
  for (const item of items) {
    if (item.type !== 'message' || !Array.isArray(item['content'])) continue;
    for (const part of item['content'] as Array<{ type?: unknown; text?: unknown }>) if (part?.type === 'output_text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

/** A request's `input` as items: a string is one user message. */
export function inputItems(input: unknown): AgentInputItem[] {
  if (input === undefined || input === null) return [];
  if (typeof input === 'string') return [{ role: 'user', content: input }];
  return Array.isArray(input) ? (input as AgentInputItem[]) : [input as AgentInputItem];
}
