import { Observable } from 'rxjs';
import { ResponseStreamTracker } from '../decode/tracker.js';
import type { ResponseCreateClientEvent, ResponsesServerEvent } from '../events/websocket.js';
import { LaneScheduler } from './lane-scheduler.js';
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

// One scheduler per socket for all one-shot requests, so they share the lane FIFO and the in-flight cap.
const shared = new WeakMap<LaneSocket, LaneScheduler>();

function schedulerOf(socket: LaneSocket): LaneScheduler {
  let s = shared.get(socket);
  if (s && !s.stopped) return s;
  const scheduler: LaneScheduler = new LaneScheduler(
    socket,
    LaneScheduler.settings({}, {
      releaseIdleLanes: true,
      onOrphan: () => {},
      onSocketEnd: () => shared.delete(socket),
      onSettled: () => {
        // Stop listening when nothing is pending; the next request starts again.
        if (scheduler.idle && !scheduler.stopped) {
          scheduler.stop();
          if (shared.get(socket) === scheduler) shared.delete(socket);
        }
      },
    }),
  );
  shared.set(socket, scheduler);
  scheduler.start();
  return scheduler;
}

/**
 * Sends one `response.create` over a Responses WebSocket and streams that response's events, completing at
 * its terminal event: WebSocket mode as a drop-in for `streamResponse`, so every Responses operator applies.
 * Requests on the same socket share lanes (FIFO per `stream_id`) and the in-flight cap. A protocol error
 * or a lost connection errors it with `LaneError`; `response.failed` with `ResponseStreamError`.
 * Unsubscribing before it is sent withdraws it; after, the response runs on unseen.
 *
 * ```ts
 * streamResponseOverSocket(socket, { model: 'gpt-5.4-nano', input: 'Hi' })
 *   .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
 * ```
 */
export function streamResponseOverSocket(socket: LaneSocket, body: SocketResponseBody, options: ResponseOverSocketOptions = {}): Observable<ResponsesServerEvent> {
  return new Observable<ResponsesServerEvent>((subscriber) => {
    let last: ResponsesServerEvent | undefined;
    const scheduler = schedulerOf(socket);
    const req = scheduler.submit({ ...body, type: 'response.create' } as ResponseCreateClientEvent, {
      event(e) {
        last = e;
        subscriber.next(e);
      },
      fail: (err) => subscriber.error(err),
      done() {
        if (last?.type === 'response.failed' && options.errorEvents !== 'value') subscriber.error(new ResponseStreamTracker().errorOf(last));
        else subscriber.complete();
      },
    });
    return () => {
      if (req) scheduler.cancel(req);
    };
  });
}
