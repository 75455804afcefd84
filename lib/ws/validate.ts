import { describeFailure } from '../events/decode.js';
import { ResponsesClientEvent } from '../events/websocket.js';
import { InvalidClientEventError } from './errors.js';

/** `undefined` when the client event is valid (incl. `stream_id`: 1–256 of `[A-Za-z0-9_.-]`), else the typed error. */
export function checkClientEvent(event: unknown): InvalidClientEventError | undefined {
  const r = ResponsesClientEvent.validate(event, [{ key: '', type: ResponsesClientEvent, actual: event }]);
  if (r._tag === 'Right') return undefined;
  const { path, reason } = describeFailure(r.left);
  const type = typeof event === 'object' && event !== null ? (event as { type?: unknown }).type : undefined;
  return new InvalidClientEventError(reason, path, typeof type === 'string' ? type : undefined);
}
