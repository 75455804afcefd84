// resumeFrom never splices another response into the stream: a reconnect that answers for a different
// response (its `response.created`, or any event naming `response.id` / `response_id`) ends the stream with
// ResponseMismatchError, not retryable, and none of the other response's events reach downstream.
import { concat, lastValueFrom, of, tap, throwError, type Observable } from 'rxjs';
import { ResponseMismatchError, StreamInterruptedError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { retrieveResponseStream, streamResponse } from '../../lib/http/transports';
import { parseTranscript, startTestServer } from '../../testing/index';
import { resumeFrom, resumeFromCursor, type ResumeCursor } from '../../operators/resumeFrom';
import { fixture } from '../helpers/fixtures';

const ev = (e: Record<string, unknown>) => e as unknown as ResponseStreamEvent;
const created = (id: string) => ev({ type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] }, sequence_number: 0 });
const delta = (n: number, text = `d${n}`) => ev({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: text, logprobs: [], sequence_number: n });
const completed = (id: string, n: number) => ev({ type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [] }, sequence_number: n });
const cut = (id: string, n: number) => throwError(() => new StreamInterruptedError(id, n));

async function run(o: Observable<ResponseStreamEvent>): Promise<{ values: ResponseStreamEvent[]; error: unknown }> {
  const values: ResponseStreamEvent[] = [];
  try {
    await lastValueFrom(o.pipe(tap((v) => values.push(v))));
  } catch (error) {
    return { values, error };
  }
  return { values, error: undefined };
}

test("a reconnect that replays another response's response.created", async () => {
  const first = concat(of(created('resp_A'), delta(1), delta(2)), cut('resp_A', 2));
  let reconnects = 0;
  const { values, error } = await run(first.pipe(resumeFrom(() => (reconnects++, of(created('resp_B'), delta(1, 'x'), delta(2, 'y'), delta(3, 'z'), completed('resp_B', 4))), { delayMs: 0 })));
  expect(error).toBeInstanceOf(ResponseMismatchError);
  expect(error).toMatchObject({ code: 'response_mismatch', retryable: false, expectedResponseId: 'resp_A', receivedResponseId: 'resp_B', eventType: 'response.created' });
  expect(values.map((e) => e.sequence_number)).toEqual([0, 1, 2]);
  expect(reconnects).toBe(1);
});

test('a reconnect that starts after the cursor and names another response only at its terminal event', async () => {
  const first = concat(of(created('resp_A'), delta(1)), cut('resp_A', 1));
  const { values, error } = await run(first.pipe(resumeFrom(() => of(delta(2), delta(3), completed('resp_B', 4)), { delayMs: 0 })));
  expect(error).toMatchObject({ name: 'ResponseMismatchError', receivedResponseId: 'resp_B', eventType: 'response.completed' });
  // What came before the mismatch is delivered; the mismatching event is not.
  expect(values.map((e) => e.type)).toEqual(['response.created', 'response.output_text.delta', 'response.output_text.delta', 'response.output_text.delta']);
});

test('an event carrying response_id of another response', async () => {
  const first = concat(of(created('resp_A'), delta(1)), cut('resp_A', 1));
  const other = ev({ type: 'response.output_text.annotation.added', response_id: 'resp_B', sequence_number: 2 });
  const { error } = await run(first.pipe(resumeFrom(() => of(other, completed('resp_A', 3)), { delayMs: 0 })));
  expect(error).toMatchObject({ name: 'ResponseMismatchError', receivedResponseId: 'resp_B' });
});

test('resumeFromCursor with a saved cursor, answered for another response', async () => {
  const cursor: ResumeCursor = { responseId: 'resp_A', sequenceNumber: 1 };
  const { values, error } = await run(resumeFromCursor(cursor, () => of(created('resp_B'), delta(2), completed('resp_B', 3)), { delayMs: 0 }));
  expect(error).toMatchObject({ name: 'ResponseMismatchError', expectedResponseId: 'resp_A', receivedResponseId: 'resp_B' });
  expect(values).toEqual([]);
});

test('the same response resumed is not a mismatch', async () => {
  const first = concat(of(created('resp_A'), delta(1)), cut('resp_A', 1));
  const { values, error } = await run(first.pipe(resumeFrom(() => of(created('resp_A'), delta(1), delta(2), completed('resp_A', 3)), { delayMs: 0 })));
  expect(error).toBeUndefined();
  expect(values.map((e) => e.sequence_number)).toEqual([0, 1, 2, 3]);
});

describe('over HTTP: a reconnect that asks for the wrong response id (two cursors mixed up)', () => {
  const plain = fixture('plain-text');
  const long = fixture('long-text');
  const otherId = parseTranscript(long).responseId as string;

  async function resumeWrong(dropAfter: number) {
    const server = await startTestServer({ transcripts: { plain, long }, faults: [{ type: 'ok' }, { type: 'drop', afterEvents: dropAfter }] });
    const config = { baseURL: server.baseURL, apiKey: 'sk-test' };
    try {
      // The server serves a response's events once it was created: create the other one first.
      await lastValueFrom(streamResponse({ model: 'long' }, config));
      return await run(streamResponse({ model: 'plain' }, config).pipe(resumeFrom((c) => retrieveResponseStream(otherId, { startingAfter: c.sequenceNumber }, config), { delayMs: 0 })));
    } finally {
      await server.close();
    }
  }

  test('cut after response.created: refused at the first event of the answer that names its response, nothing spliced', async () => {
    const { values, error } = await resumeWrong(1);
    expect(error).toBeInstanceOf(ResponseMismatchError);
    expect(error).toMatchObject({ expectedResponseId: parseTranscript(plain).responseId, receivedResponseId: otherId, eventType: 'response.in_progress' });
    expect(values).toHaveLength(1);
  });

  // The limit of the check: events that name no response (deltas) cannot be told apart, so they pass; the
  // stream still never completes as if it were one response.
  test('cut mid-answer: the other response is refused at its terminal event at the latest', async () => {
    const { values, error } = await resumeWrong(3);
    expect(error).toMatchObject({ name: 'ResponseMismatchError', receivedResponseId: otherId, eventType: 'response.completed' });
    expect(values.some((e) => e.type === 'response.completed')).toBe(false);
  });
});
