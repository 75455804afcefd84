import { DecodeError, malformedJSON } from '../errors.js';
import { decodeTyped, type ValidateMode } from '../events/decode.js';
import { isValidStreamId, serverEventTable, type ResponsesServerEvent } from '../events/websocket.js';
import { providerError } from '../decode/provider-error.js';
import type { FrameErrorEvent, SocketEvent } from './types.js';

const STREAM_ID_IN_TEXT = /"stream_id"\s*:\s*"([A-Za-z0-9_.-]{1,256})"/;
const TYPE_IN_TEXT = /"type"\s*:\s*"([A-Za-z0-9_.]{1,128})"/;

/**
 * One text frame → one event. A frame that fails (bad JSON, bad codec) becomes a `FrameErrorEvent` naming
 * the lane and event type it claimed, read from the parsed object or, failing that, from the raw text.
 */
export function decodeFrame(text: string, validate: ValidateMode): SocketEvent {
  let u: unknown;
  try {
    u = JSON.parse(text);
  } catch {
    return frameError(malformedJSON(text, TYPE_IN_TEXT.exec(text)?.[1]), STREAM_ID_IN_TEXT.exec(text)?.[1], TYPE_IN_TEXT.exec(text)?.[1]);
  }
  try {
    return decodeTyped(u, serverEventTable, validate) as ResponsesServerEvent;
  } catch (e) {
    const o = (typeof u === 'object' && u !== null ? u : {}) as { stream_id?: unknown; type?: unknown };
    // An `error` frame of no documented shape is still the server's error: read as the SSE decoders read one.
    const report = o.type === 'error' && e instanceof DecodeError ? providerError(undefined, u, text) : undefined;
    if (report !== undefined) return (isValidStreamId(o.stream_id) ? { ...report, stream_id: o.stream_id } : report) as ResponsesServerEvent;
    const err = e instanceof DecodeError ? e : new DecodeError(String(e));
    return frameError(err, typeof o.stream_id === 'string' ? o.stream_id : undefined, typeof o.type === 'string' ? o.type : undefined);
  }
}

const strictUTF8 = new TextDecoder('utf-8', { fatal: true });
const lossyUTF8 = new TextDecoder();

function bytesOf(data: unknown): Uint8Array | undefined {
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}

/** A frame's size: bytes for binary data, UTF-16 units for text (what the limit is checked against). */
export function frameSize(data: unknown): number {
  return typeof data === 'string' ? data.length : (bytesOf(data)?.byteLength ?? 0);
}

/**
 * One frame, as text or bytes (text or binary frame), → one event; `undefined` for data that is neither.
 * Bytes that are not UTF-8 are a `FrameErrorEvent` on the lane they name: never a replacement character.
 */
export function decodeFrameData(data: unknown, validate: ValidateMode): SocketEvent | undefined {
  if (typeof data === 'string') return decodeFrame(data, validate);
  const bytes = bytesOf(data);
  if (!bytes) return undefined;
  let text: string;
  try {
    text = strictUTF8.decode(bytes);
  } catch {
    // Read lossily only to name the lane and the event type.
    const seen = lossyUTF8.decode(bytes);
    const type = TYPE_IN_TEXT.exec(seen)?.[1];
    return frameError(new DecodeError('invalid UTF-8 in a WebSocket frame', type), STREAM_ID_IN_TEXT.exec(seen)?.[1], type);
  }
  return decodeFrame(text, validate);
}

function frameError(error: DecodeError, streamId: string | undefined, eventType: string | undefined): FrameErrorEvent {
  const e: { -readonly [K in keyof FrameErrorEvent]: FrameErrorEvent[K] } = { type: 'openai_rx.frame_error', error };
  if (streamId !== undefined) e.stream_id = streamId;
  if (eventType !== undefined) e.event_type = eventType;
  return e;
}
