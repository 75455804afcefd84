import { responseEventTable, type KnownResponseStreamEvent, type ResponseStreamEvent, type ResponseStreamEventMap, type ResponseStreamEventType } from './responses.js';

/** `true` for the 59 documented event types: after it, `switch (e.type)` narrows. */
export function isKnownEvent(e: ResponseStreamEvent): e is KnownResponseStreamEvent {
  return responseEventTable.has(e.type);
}

/** Narrows one event to the given wire type. */
export function isEventType<K extends ResponseStreamEventType>(e: { readonly type: string }, type: K): e is ResponseStreamEventMap[K] {
  return e.type === type;
}

export const RESPONSE_STREAM_EVENT_TYPES = [...responseEventTable.keys()] as ResponseStreamEventType[];

/**
 * The events after which a response sends nothing more (`error` is terminal in-band too). `response.cancelled`
 * (also spelt `response.canceled`) is not among the documented stream events but ends a cancelled response's
 * stream where a server says so (this library's gateway and fake provider, the API's webhook name).
 */
export function isTerminalType(type: unknown): boolean {
  return (
    type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed' || type === 'error' ||
    type === 'response.cancelled' || type === 'response.canceled'
  );
}

/**
 * Whether a terminal event says the response was cancelled: `response.cancelled` / `response.canceled`, or a
 * terminal lifecycle event (`response.failed`, `.incomplete`, `.completed`) whose `response.status` is
 * `cancelled`, as servers differ in how they end a cancelled response's stream.
 */
export function isCancelledEvent(e: { readonly type?: unknown; readonly response?: unknown }): boolean {
  const t = e.type;
  if (t === 'response.cancelled' || t === 'response.canceled') return true;
  if (t !== 'response.failed' && t !== 'response.incomplete' && t !== 'response.completed') return false;
  const r = e.response;
  const status = typeof r === 'object' && r !== null ? (r as { status?: unknown }).status : undefined;
  return status === 'cancelled' || status === 'canceled';
}

/** The events that carry the server's own text (`error`, `*.failed`), which leave masked like an error body. */
export function isErrorType(type: unknown): boolean {
  return typeof type === 'string' && (type === 'error' || type.endsWith('.failed'));
}

/**
 * The id of the response a lifecycle event (`response.created`, `.in_progress`, the terminal ones…) carries in
 * `response.id`; other events name none here.
 */
export function responseIdOf(e: object): string | undefined {
  const r = (e as { response?: unknown }).response;
  const id = typeof r === 'object' && r !== null ? (r as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : undefined;
}
