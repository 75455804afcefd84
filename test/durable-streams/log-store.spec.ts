// eventLogStreamStore on the memory log (the shared suite: log-store-suite.ts), and its option checks.
import { InvalidOptionError } from '../../lib/errors';
import { eventLogStreamStore } from '../../lib/durable-streams/log-store';
import type { EventLog } from '../../lib/log/types';
import { memoryEventLog } from '../../lib/log/memory';
import { describeLogStreamStore } from './log-store-suite';
import { describeLogStreamStoreForks } from './log-store-fork-suite';

const memory = async () => {
  const log = memoryEventLog();
  return { a: log, b: log, cleanup: () => log.close() };
};
describeLogStreamStore('the memory log', memory);
describeLogStreamStoreForks('the memory log', memory);

describe('eventLogStreamStore options', () => {
  const log = memoryEventLog();
  afterAll(() => log.close());
  it.each([
    ['namespace', { namespace: '' }],
    ['namespace', { namespace: 3 }],
    ['leaseMs', { leaseMs: 0 }],
    ['leaseWaitMs', { leaseWaitMs: -1 }],
    ['touchIntervalMs', { touchIntervalMs: Number.NaN }],
    ['now', { now: 'soon' }],
    ['cacheSize', { cacheSize: 0 }],
    ['keepAliveMs', { keepAliveMs: 0 }],
  ])('refuses a bad %s with an InvalidOptionError naming it', (option, options) => {
    const make = () => eventLogStreamStore(log, options as never);
    expect(make).toThrow(InvalidOptionError);
    expect(make).toThrow(expect.objectContaining({ option }));
  });
  it('refuses something that is not an EventLog', () => {
    expect(() => eventLogStreamStore({} as EventLog)).toThrow(expect.objectContaining({ option: 'log' }));
  });
});
