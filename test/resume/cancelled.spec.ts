// However a server ends a cancelled response's stream (`response.cancelled`, `response.canceled`, or a terminal
// lifecycle event whose response says `cancelled`), the decoder ends it with ResponseCancelledError, which is
// not retryable, so resumeFrom passes it through without a reconnect. With `errorEvents: 'value'` it completes.
// Over a WebSocket too: the lane ends at it, and the response's stream with ResponseCancelledError.
import { lastValueFrom, Subject, toArray } from 'rxjs';
import { fromResponsesSSE } from '../../lib/decode/responses-sse';
import { ResponseCancelledError, ResponseStreamError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { streamResponseOverSocket } from '../../lib/ws/response';
import type { LaneSocket, SocketEvent } from '../../lib/ws/types';
import { resumeFrom } from '../../operators/resumeFrom';

const resp = (status: string) => ({ id: 'resp_c', object: 'response', created_at: 1, status, model: 'm', output: [] });
const frame = (e: Record<string, unknown>) => `event: ${e['type'] as string}\ndata: ${JSON.stringify(e)}\n\n`;
const head = [
  frame({ type: 'response.created', sequence_number: 0, response: resp('in_progress') }),
  frame({ type: 'response.in_progress', sequence_number: 1, response: resp('in_progress') }),
].join('');

/** Everything a stream delivers, then how it ended. */
async function outcome(body: string, errorEvents?: 'error' | 'value') {
  const events: ResponseStreamEvent[] = [];
  let reconnects = 0;
  const end = await lastValueFrom(
    fromResponsesSSE(body, errorEvents ? { errorEvents } : {}).pipe(
      resumeFrom(
        () => {
          reconnects++;
          return fromResponsesSSE(body);
        },
        { delayMs: 0 },
      ),
      toArray(),
    ),
  ).then(
    (all) => {
      events.push(...all);
      return 'completed' as const;
    },
    (e: unknown) => e,
  );
  return { end, reconnects };
}

describe.each([
  ['response.cancelled', 'cancelled'],
  ['response.canceled', 'canceled'],
  ['response.failed', 'cancelled'],
  ['response.incomplete', 'cancelled'],
])('a stream ending with %s (response.status %s)', (type, status) => {
  // What follows the terminal event (nothing, a cut, junk) changes nothing: the stream ended there.
  const body = head + frame({ type, sequence_number: 2, response: resp(status) }) + 'event: response.output_text.delta\ndata: {"trunc';

  it('ends with a ResponseCancelledError naming the response, not retryable, after 0 reconnects', async () => {
    const { end, reconnects } = await outcome(body);
    expect(end).toBeInstanceOf(ResponseCancelledError);
    expect(end).toBeInstanceOf(ResponseStreamError);
    expect(end).toMatchObject({ code: 'response_cancelled', retryable: false, responseId: 'resp_c', sequenceNumber: 2, eventType: type });
    expect(reconnects).toBe(0);
  });

  it("completes after it with errorEvents: 'value'", async () => {
    const events = await lastValueFrom(fromResponsesSSE(body, { errorEvents: 'value' }).pipe(toArray()));
    expect(events.map((e) => e.type)).toEqual(['response.created', 'response.in_progress', type]);
  });
});

it('a response.failed that is not a cancellation is still the ResponseStreamError of a failure', async () => {
  const failed = { ...resp('failed'), error: { code: 'server_error', message: 'boom' } };
  const { end } = await outcome(head + frame({ type: 'response.failed', sequence_number: 2, response: failed }));
  expect(end).toBeInstanceOf(ResponseStreamError);
  expect(end).not.toBeInstanceOf(ResponseCancelledError);
  expect(end).toMatchObject({ code: 'server_error' });
});

it('the error carries no secrets and says what was cancelled', () => {
  const e = new ResponseCancelledError('response.cancelled', 7, 'resp_x', { type: 'response.cancelled' });
  expect(e.message).toBe('response.cancelled: response_cancelled: the response resp_x was cancelled');
  expect(e.toJSON()).toMatchObject({ name: 'ResponseCancelledError', code: 'response_cancelled', responseId: 'resp_x', sequenceNumber: 7, retryable: false });
});

describe('over a WebSocket', () => {
  /** A socket that answers a response.create with created, one delta, then the terminal `type`. */
  function socketEnding(type: string, status: string): LaneSocket {
    const events$ = new Subject<SocketEvent>();
    return {
      events$,
      send: () =>
        queueMicrotask(() => {
          events$.next({ type: 'response.created', sequence_number: 0, response: resp('in_progress') } as unknown as SocketEvent);
          events$.next({ type: 'response.output_text.delta', sequence_number: 1, item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi', logprobs: [] } as unknown as SocketEvent);
          events$.next({ type, sequence_number: 2, response: resp(status) } as unknown as SocketEvent);
        }),
    };
  }

  it.each([
    ['response.cancelled', 'cancelled'],
    ['response.failed', 'cancelled'],
  ])('a response ending with %s (status %s) ends with ResponseCancelledError; errorEvents: value completes', async (type, status) => {
    const got: string[] = [];
    const end = await lastValueFrom(streamResponseOverSocket(socketEnding(type, status), { model: 'm', input: 'hi' }).pipe(toArray())).then(
      () => 'completed',
      (e: unknown) => e,
    );
    expect(end).toBeInstanceOf(ResponseCancelledError);
    expect(end).toMatchObject({ retryable: false, responseId: 'resp_c' });
    const values = await lastValueFrom(streamResponseOverSocket(socketEnding(type, status), { model: 'm', input: 'hi' }, { errorEvents: 'value' }).pipe(toArray()));
    for (const e of values) got.push(e.type);
    expect(got).toEqual(['response.created', 'response.output_text.delta', type]);
  });
});
