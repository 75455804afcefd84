// The marble specs' error comparison (test/helpers/marbles.ts) really tells errors apart: jest's toEqual
// alone passes two errors with the same message whatever their class, code or retryable.
import { throwError } from 'rxjs';
import { IdleTimeoutError, NetworkError, StreamInterruptedError } from '../../lib/errors';
import { marbleScheduler } from '../helpers/marbles';

/** A NetworkError whose `retryable` regressed. */
const notRetryable = (message: string) => Object.defineProperty(new NetworkError(message), 'retryable', { value: false });

const fails = (actual: Error, expected: Error) => () =>
  marbleScheduler().run(({ expectObservable }) => {
    expectObservable(throwError(() => actual)).toBe('#', undefined, expected);
  });

describe('marbleScheduler compares errors by class, code and retryable', () => {
  test('jest alone does not (the reason for the helper)', () => {
    const idle = new IdleTimeoutError(1);
    expect(new NetworkError(idle.message)).toEqual(idle);
  });

  test('the same error passes', () => {
    expect(fails(new StreamInterruptedError('resp_1', 2), new StreamInterruptedError('resp_1', 2))).not.toThrow();
  });

  test('another class with the same message fails', () => {
    const idle = new IdleTimeoutError(5);
    const net = new NetworkError(idle.message);
    expect(fails(net, idle)).toThrow(/not the expected one/);
  });

  test('a changed retryable fails', () => {
    expect(fails(notRetryable('x'), new NetworkError('x'))).toThrow(/not the expected one/);
  });

  test('a changed code or field fails', () => {
    expect(fails(new StreamInterruptedError('resp_1', 3), new StreamInterruptedError('resp_1', 2, 'the stream ended before a terminal event'))).toThrow();
    const coded = Object.assign(new NetworkError('x'), { code: 'other' });
    expect(fails(coded, new NetworkError('x'))).toThrow(/not the expected one/);
  });

  test('an asymmetric matcher or a non-Error still works as before', () => {
    marbleScheduler().run(({ expectObservable }) => {
      expectObservable(throwError(() => new NetworkError('x'))).toBe('#', undefined, expect.any(NetworkError));
      expectObservable(throwError(() => 'boom')).toBe('#', undefined, 'boom');
    });
  });
});
