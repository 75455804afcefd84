// openai-rx/streams: the Durable Streams protocol over the package's event log.
export { eventLogStreamStore, type EventLogStreamStoreOptions } from './log-store.js';
export {
  fromDurableStream,
  type FromDurableStreamOptions, type DurableStreamBatch, type DurableStreamMessages, type DurableStreamBytes,
  type DurableStreamRetryOptions, type DurableStreamRetryDelay,
} from './from-durable-stream.js';
