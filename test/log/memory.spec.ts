import { memoryEventLog } from '../../lib/log/memory';
import { describeEventLogContract } from './contract';

describeEventLogContract('memoryEventLog', async (limits) => {
  const log = memoryEventLog({ ...limits });
  return { log, cleanup: () => log.close() };
});
