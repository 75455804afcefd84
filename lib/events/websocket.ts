import * as t from 'io-ts';
import { JsonObject, struct, nullable, optional, sequenceNumber, taggedUnion, tableOf } from './codec.js';
import { KnownResponseStreamEvent, responseEventCodecs, UnknownEvent } from './responses.js';

// Responses WebSocket mode (wss://…/v1/responses): client events and the server events on top of SSE's.

const STREAM_ID = /^[A-Za-z0-9_.-]{1,256}$/;

interface StreamIdBrand { readonly StreamId: unique symbol }
/** 1–256 characters of `[A-Za-z0-9_.-]`. */
export const StreamId = t.brand(t.string, (s): s is t.Branded<string, StreamIdBrand> => STREAM_ID.test(s), 'StreamId');
export function isValidStreamId(s: unknown): s is string {
  return typeof s === 'string' && STREAM_ID.test(s);
}
const streamIdField = new t.Type<string | undefined, string | undefined, unknown>(
  'stream_id?',
  (u): u is string | undefined => u === undefined || isValidStreamId(u),
  (u, c) => (u === undefined || isValidStreamId(u) ? t.success(u) : t.failure(u, c, 'stream_id must be 1-256 characters of [A-Za-z0-9_.-]')),
  t.identity,
);

/** `response.create`: every `POST /v1/responses` field, plus `stream_id` and `generate: false` warm-up. */
export const ResponseCreateClientEvent = struct(
  { type: t.literal('response.create'), stream_id: streamIdField, generate: optional(t.boolean), model: optional(t.string), previous_response_id: optional(nullable(t.string)) },
  'response.create',
);
export const ResponseSteerClientEvent = struct(
  { type: t.literal('response.steer'), stream_id: streamIdField, previous_response_id: t.string, input: t.unknown },
  'response.steer',
);
export const ResponseInjectClientEvent = struct(
  { type: t.literal('response.inject'), stream_id: streamIdField, response_id: t.string, input: t.array(t.unknown) },
  'response.inject',
);
/**
 * `response.create` (client → server): every `POST /v1/responses` field, plus `stream_id` and `generate: false` warm-up.
 * @interface
 */
export type ResponseCreateClientEvent = t.TypeOf<typeof ResponseCreateClientEvent> & { readonly [key: string]: unknown };
/**
 * `response.steer` (client → server): new input for a running response.
 * @interface
 */
export type ResponseSteerClientEvent = t.TypeOf<typeof ResponseSteerClientEvent> & { readonly [key: string]: unknown };
/**
 * `response.inject` (client → server): items added to a response's context.
 * @interface
 */
export type ResponseInjectClientEvent = t.TypeOf<typeof ResponseInjectClientEvent> & { readonly [key: string]: unknown };
export type ResponsesClientEvent = ResponseCreateClientEvent | ResponseSteerClientEvent | ResponseInjectClientEvent;

export const ResponsesClientEvent = taggedUnion<ResponsesClientEvent>(
  'ResponsesClientEvent',
  tableOf({ 'response.create': ResponseCreateClientEvent, 'response.steer': ResponseSteerClientEvent, 'response.inject': ResponseInjectClientEvent }),
  false,
);

const laneField = { stream_id: optional(t.string), sequence_number: sequenceNumber };
export const ResponseSteerAcceptedEvent = struct({ type: t.literal('response.steer.accepted'), steer: optional(JsonObject), ...laneField }, 'response.steer.accepted');
export const ResponseSteerPendingEvent = struct(
  { type: t.literal('response.steer.pending'), steer: optional(JsonObject), reason: optional(t.string), required_input: optional(t.array(t.unknown)), ...laneField },
  'response.steer.pending',
);
export const ResponseSteerFailedEvent = struct({ type: t.literal('response.steer.failed'), steer: optional(JsonObject), error: optional(JsonObject), ...laneField }, 'response.steer.failed');
export const ResponseInjectCreatedEvent = struct({ type: t.literal('response.inject.created'), ...laneField }, 'response.inject.created');
export const ResponseInjectFailedEvent = struct({ type: t.literal('response.inject.failed'), error: optional(JsonObject), ...laneField }, 'response.inject.failed');

/** WebSocket `error`: `{ status, stream_id?, error: { type, code, message, param } }`; the SSE shape (`code`, `message` at top level) is also accepted. */
export const WebSocketErrorEvent = struct(
  {
    type: t.literal('error'),
    status: optional(t.number),
    stream_id: optional(t.string),
    error: optional(struct({ type: optional(t.string), code: optional(nullable(t.string)), message: t.string, param: optional(nullable(t.string)) }, 'error.error')),
    code: optional(nullable(t.string)),
    message: optional(t.string),
    param: optional(nullable(t.string)),
    sequence_number: sequenceNumber,
  },
  'error',
);

/**
 * `response.steer.accepted`: a `response.steer` was applied.
 * @interface
 */
export type ResponseSteerAcceptedEvent = t.TypeOf<typeof ResponseSteerAcceptedEvent>;
/**
 * `response.steer.pending`: a `response.steer` waits (see `reason`, `required_input`).
 * @interface
 */
export type ResponseSteerPendingEvent = t.TypeOf<typeof ResponseSteerPendingEvent>;
/**
 * `response.steer.failed`: a `response.steer` was refused.
 * @interface
 */
export type ResponseSteerFailedEvent = t.TypeOf<typeof ResponseSteerFailedEvent>;
/**
 * `response.inject.created`: a `response.inject` was applied.
 * @interface
 */
export type ResponseInjectCreatedEvent = t.TypeOf<typeof ResponseInjectCreatedEvent>;
/**
 * `response.inject.failed`: a `response.inject` was refused.
 * @interface
 */
export type ResponseInjectFailedEvent = t.TypeOf<typeof ResponseInjectFailedEvent>;
/**
 * `error` over a WebSocket: `{ status, stream_id?, error: { type, code, message, param } }`; the SSE shape (`code`, `message` at the top) is also accepted.
 * @interface
 */
export type WebSocketErrorEvent = t.TypeOf<typeof WebSocketErrorEvent>;

/** Every SSE event may carry the lane's `stream_id` when it comes over a WebSocket. */
export type WithStreamId<E> = E & { readonly stream_id?: string };

export type KnownResponsesServerEvent =
  | WithStreamId<Exclude<KnownResponseStreamEvent, { type: 'error' }>>
  | ResponseSteerAcceptedEvent | ResponseSteerPendingEvent | ResponseSteerFailedEvent
  | ResponseInjectCreatedEvent | ResponseInjectFailedEvent | WebSocketErrorEvent;
/** An undocumented server event; over a WebSocket it may name its lane too. */
export type UnknownServerEvent = UnknownEvent & { readonly stream_id?: string };
export type ResponsesServerEvent = KnownResponsesServerEvent | UnknownServerEvent;

export const serverEventCodecs = {
  ...responseEventCodecs,
  'response.steer.accepted': ResponseSteerAcceptedEvent,
  'response.steer.pending': ResponseSteerPendingEvent,
  'response.steer.failed': ResponseSteerFailedEvent,
  'response.inject.created': ResponseInjectCreatedEvent,
  'response.inject.failed': ResponseInjectFailedEvent,
  error: WebSocketErrorEvent,
} as const;

export const serverEventTable = tableOf(serverEventCodecs);
