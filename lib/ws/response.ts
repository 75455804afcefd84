import { Observable } from 'rxjs';
import { ResponseStreamTracker } from '../decode/tracker.js';
import type { ResponseCreateClientEvent, ResponsesServerEvent } from '../events/websocket.js';
import { LaneClient } from './lane-client.js';
import type { LaneSocket } from './types.js';

/** A `response.create` body without its `type`: any `POST /v1/responses` field, plus an optional `stream_id`. */
export type SocketResponseBody = Omit<ResponseCreateClientEvent, 'type'> & { readonly [key: string]: unknown };

export interface ResponseOverSocketOptions {
  /**
   * `'error'` (default): a `response.failed` event is emitted, then the Observable errors with
   * `ResponseStreamError`, as over SSE. `'value'`: it is emitted and the Observable completes.
   */
  readonly errorEvents?: 'error' | 'value';
}

const quiet = { orphan() {}, ended() {}, settled() {} };

/**
 * Sends one `response.create` over a Responses WebSocket and streams that response's events, completing at
 * its terminal event: WebSocket mode as a drop-in for `streamResponse`, so every Responses operator applies.
 * It shares the socket's lanes with every other request and `laneMux` on it (FIFO per `stream_id`, at most
 * 16 in flight). A protocol error or a lost connection errors it with `LaneError`; `response.failed` with
 * `ResponseStreamError`, a cancelled response (`response.cancelled`) with `ResponseCancelledError`. Unsubscribing before it is sent withdraws it; after, the response runs on unseen
 * and holds its lane until its terminal event.
 *
 * ```ts
 * streamResponseOverSocket(socket, { model: 'gpt-5.4-nano', input: 'Hi' })
 *   .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
 * ```
 */
export function streamResponseOverSocket(socket: LaneSocket, body: SocketResponseBody, options: ResponseOverSocketOptions = {}): Observable<ResponsesServerEvent> {
  return new Observable<ResponsesServerEvent>((subscriber) => {
    let last: ResponsesServerEvent | undefined;
    // One client per call: its request alone, on the lanes every user of the socket shares.
    const client = new LaneClient(socket, {}, quiet);
    client.submit({ ...body, type: 'response.create' } as ResponseCreateClientEvent, {
      event(e) {
        last = e;
        subscriber.next(e);
      },
      fail: (err) => subscriber.error(err),
      done() {
        // A cancelled response's own error (not retryable), as over SSE; then a failed one's.
        const ended = last !== undefined && options.errorEvents !== 'value' ? new ResponseStreamTracker().terminal(last) : undefined;
        if (ended instanceof Error) subscriber.error(ended);
        else subscriber.complete();
      },
    });
    return () => client.close();
  });
}
