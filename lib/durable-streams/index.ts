// openai-rx/streams: the Durable Streams protocol over the package's event log.
export { eventLogStreamStore, type EventLogStreamStoreOptions } from './log-store.js';
