export type { EventLog, FollowHandlers, Lease, LogEnd, LogScope, LogState } from './types.js';
export { memoryEventLog, type MemoryEventLogOptions } from './memory.js';
export { fromEventLog, type FromEventLogOptions } from './from-event-log.js';
export { cancelResponse, type CancelResponseOptions } from './cancel.js';
export type { LogWriterOptions } from './writer.js';
export { redisEventLog, type RedisEventLogOptions } from './redis.js';
