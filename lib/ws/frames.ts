import { DecodeError, malformedJSON } from '../errors.js';
import { decodeTyped, type ValidateMode } from '../events/decode.js';
import { serverEventTable, type ResponsesServerEvent } from '../events/websocket.js';
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
    const err = e instanceof DecodeError ? e : new DecodeError(String(e));
    return frameError(err, typeof o.stream_id === 'string' ? o.stream_id : undefined, typeof o.type === 'string' ? o.type : undefined);
  }
}

function frameError(error: DecodeError, streamId: string | undefined, eventType: string | undefined): FrameErrorEvent {
  const e: { -readonly [K in keyof FrameErrorEvent]: FrameErrorEvent[K] } = { type: 'openai_rx.frame_error', error };
  if (streamId !== undefined) e.stream_id = streamId;
  if (eventType !== undefined) e.event_type = eventType;
  return e;
}
