/**
 * The Durable Streams protocol (https://github.com/durable-streams/durable-streams) served over `node:http` from
 * any {@link DurableStreamStore}: create, append, close, catch-up, long-poll and SSE reads, idempotent producers;
 * `eventLogStreamStore` keeps the streams in the package's event log, `fromDurableStream` reads one as an
 * Observable. Node only for the handler: the main entry point never imports it.
 *
 * ```ts
 * import { createServer } from 'node:http';
 * import { createDurableStreamsHandler } from 'openai-rx/streams';
 *
 * createServer(createDurableStreamsHandler({ log })).listen(4437);
 * ```
 *
 * @packageDocumentation
 * @module openai-rx/streams
 */
export { createDurableStreamsHandler } from './handler.js';
export type { DurableStreamsHandlerOptions, DurableStreamsListener, DurableStreamsRouting } from './handler.js';
export { eventLogStreamStore, type EventLogStreamStoreOptions } from './log-store.js';
export {
  fromDurableStream,
  type FromDurableStreamOptions, type DurableStreamBatch, type DurableStreamMessages, type DurableStreamBytes,
  type DurableStreamRetryOptions, type DurableStreamRetryDelay,
} from './from-durable-stream.js';
export { serveDurableStream } from './serve.js';
export type { ServeOptions, ServeStreamOptions } from './serve.js';
export { formatOffset, parseOffset, START_OFFSET, TAIL_OFFSET } from './offsets.js';
export type {
  AppendRequest, AppendResult, BadRequest, CreateRequest, CreateResult, DurableStreamStore, Entry, Gone, NotFound,
  Offset, Producer, ReadBatch, ReadOptions, StreamConfig, StreamInfo,
} from './store.js';
