import { Observable, type OperatorFunction } from 'rxjs';
import type { ResponsesClientEvent, ResponsesServerEvent } from '../lib/events/websocket.js';
import type { LaneError } from '../lib/ws/errors.js';
import { checkLaneOptions, LaneClient } from '../lib/ws/lane-client.js';
import type { LaneOptions } from '../lib/ws/lane-types.js';
import type { LaneSocket } from '../lib/ws/types.js';

export type LaneMuxOptions = LaneOptions;

/** What `laneMux` emits: the server events of the requests (each with its lane's `stream_id`), or a `LaneError`. */
export type LaneMuxOutput = ResponsesServerEvent | LaneError;

/**
 * Runs client events over one Responses WebSocket in lanes (`stream_id`; none = the default lane) and
 * emits the server events of their responses, each carrying its lane's `stream_id`.
 *
 * - FIFO per lane: a lane's next `response.create` is sent once its previous response reached its terminal
 *   event; a steered response (`response.steer.accepted`, `incomplete_details.reason: "steered"`) continues
 *   with its successor. `response.steer` / `response.inject` are sent at once (they act on a running
 *   response); their `response.steer.*` / `response.inject.*` answers are emitted on the lane.
 * - The lanes belong to the socket: every `laneMux` and `socket.response()` on it shares them, FIFO per lane
 *   and at most 16 responses in flight together; `maxInFlight` caps this subscription's share.
 * - Events reach their request by lane and response id: a duplicated terminal frame, or a terminal event of
 *   another response, never ends the next request on the lane.
 * - At most `maxLanes` (32) named lanes per subscription: a request for one more gets a `LaneError`.
 * - A create with `previous_response_id` of another lane's response is a fork: that lane waits for the
 *   fork's `response.in_progress` before sending its next request (as `store: false` needs).
 * - Errors of one lane (protocol `error` events such as `previous_response_not_found`, an undecodable frame,
 *   a request that cannot be sent) are emitted as `LaneError` values (`isLaneError`): the lane moves on and
 *   the other lanes carry on. A lane whose response lost its terminal frame waits `terminalTimeoutMs` for more
 *   of it, then moves on (`terminal_timeout`). The output errors only when the connection is lost
 *   (`WebSocketClosedError`, or `LimitExceededError` for a frame over `maxFrameSize`), after a `LaneError`
 *   for every request not yet finished.
 * - Completes when the requests complete and every response has ended. Unsubscribing withdraws the queued
 *   requests; a response already running keeps its lane until its terminal event, unseen (there is no way
 *   to cancel it), so the next request on the lane never receives its rest. The socket stays open.
 *
 * ```
 * requests:  --a1--a2--b1----------------------|
 *   laneMux(socket)                        (a2 waits for a1's terminal)
 * sent:      --a1------b1-------a2---------
 * output:    -----a1 events…b1 events…a1 completed--a2 events…--b1 completed--a2 completed|
 * ```
 *
 * ```ts
 * from(prompts.map((p, i) => ({ type: 'response.create', stream_id: `lane-${i % 4}`, model, input: p })))
 *   .pipe(laneMux(socket), filter((e) => !isLaneError(e)), groupBy((e) => e.stream_id))
 * ```
 */
export function laneMux(socket: LaneSocket, options: LaneMuxOptions = {}): OperatorFunction<ResponsesClientEvent, LaneMuxOutput> {
  checkLaneOptions(options); // at the call, not at each subscription
  return (requests$) =>
    new Observable<LaneMuxOutput>((subscriber) => {
      let inputDone = false;
      const settle = (): void => {
        if (inputDone && client.idle && !subscriber.closed) subscriber.complete();
      };
      const sink = {
        event: (e: ResponsesServerEvent) => subscriber.next(e),
        fail: (err: LaneError) => subscriber.next(err),
        done: () => {},
      };
      const client: LaneClient = new LaneClient(socket, options, {
        orphan: (err) => subscriber.next(err),
        ended: (err) => subscriber.error(err),
        settled: () => settle(),
      });
      if (subscriber.closed) return undefined;
      const subscription = requests$.subscribe({
        next: (r) => {
          client.submit(r, sink);
          settle();
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          inputDone = true;
          settle();
        },
      });
      return () => {
        subscription.unsubscribe();
        client.close();
      };
    });
}
