// A shared reader's or a batch's EventLogError handed on to each response it concerned: the same reason and
// message, naming that response once (never the other one, never twice).
import { EventLogError } from '../../lib/errors';
import { eventLogErrorOf } from '../../lib/log/redis-connection';

describe('eventLogErrorOf', () => {
  test("an error for another response names this one instead", () => {
    const e = eventLogErrorOf(new EventLogError('limit', 'the stream would hold 11 events (maxEvents 10)', 'resp_a'), 'resp_b');
    expect(e).toBeInstanceOf(EventLogError);
    expect(e.message).toBe('limit: the stream would hold 11 events (maxEvents 10) (response resp_b)');
    expect([e.reason, e.responseId, e.retryable]).toEqual(['limit', 'resp_b', false]);
  });

  test('an error for no response names this one', () => {
    const e = eventLogErrorOf(new EventLogError('unavailable', 'Redis: connection lost'), 'resp_b');
    expect(e.message).toBe('unavailable: Redis: connection lost (response resp_b)');
    expect([e.reason, e.responseId, e.retryable]).toEqual(['unavailable', 'resp_b', true]);
  });

  test('an id holding a parenthesis is taken off whole', () => {
    const e = eventLogErrorOf(new EventLogError('fenced', 'token 3 does not hold the lease', 'odd)id'), undefined);
    expect(e.message).toBe('fenced: token 3 does not hold the lease');
    expect(e.responseId).toBeUndefined();
  });
});
