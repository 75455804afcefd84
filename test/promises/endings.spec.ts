// The fixture loops' helper (test/helpers/endings.ts) fails a run that ends otherwise than the transcript says:
// an operator that errors at the terminal event after correct values no longer passes.
import { concat, from, of, throwError } from 'rxjs';
import { ResponseStreamError, StreamInterruptedError } from '../../lib/errors';
import { fixture, responsesFixtures } from '../helpers/fixtures';
import { responsesEnding, valuesToEnd } from '../helpers/endings';

describe('valuesToEnd', () => {
  test('every transcript has an ending: failed.sse and error.sse fail, the others complete', () => {
    const failing = responsesFixtures().filter((f) => responsesEnding(fixture(f)).kind === 'error').sort();
    expect(failing).toEqual(['error.sse', 'failed.sse']);
    expect(responsesEnding(fixture('failed'))).toEqual({ kind: 'error', eventType: 'response.failed' });
    expect(responsesEnding(fixture('error'))).toEqual({ kind: 'error', eventType: 'error' });
  });

  test('completion where completion is expected gives the values', async () => {
    await expect(valuesToEnd(from([1, 2]), { kind: 'complete' })).resolves.toEqual([1, 2]);
  });

  test('an error after correct values, where completion is expected, fails', async () => {
    await expect(valuesToEnd(concat(of(1, 2), throwError(() => new TypeError('x is undefined'))), { kind: 'complete' })).rejects.toThrow(/expected completion, got TypeError .* after 2 values/);
  });

  test("a failing transcript: its own ResponseStreamError passes; completion or another error fails", async () => {
    const ending = { kind: 'error', eventType: 'response.failed' } as const;
    const failed = new ResponseStreamError('response.failed', 'server_error', 'boom', null, 9, 'resp_1', {});
    await expect(valuesToEnd(concat(of(1), throwError(() => failed)), ending)).resolves.toEqual([1]);
    await expect(valuesToEnd(of(1), ending)).rejects.toThrow(/got completion/);
    await expect(valuesToEnd(throwError(() => new StreamInterruptedError('resp_1', 3)), ending)).rejects.toThrow(/StreamInterruptedError/);
    const other = new ResponseStreamError('error', 'x', 'y', null, 9, 'resp_1', {});
    await expect(valuesToEnd(throwError(() => other), ending)).rejects.toThrow(/expected a ResponseStreamError for response.failed/);
  });
});
