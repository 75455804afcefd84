// What openai-rx/streams exports (pinned by ../exports.spec.ts; see ./index.ts).
import type { EntryExports } from './index';

export const streams: EntryExports = {
  values: [
    'START_OFFSET',
    'TAIL_OFFSET',
    'createDurableStreamsHandler',
    'eventLogStreamStore',
    'formatOffset',
    'parseOffset',
    'serveDurableStream',
  ],
  types: [
    'AppendRequest',
    'AppendResult',
    'BadRequest',
    'CreateRequest',
    'CreateResult',
    'DurableStreamStore',
    'DurableStreamsHandlerOptions',
    'DurableStreamsListener',
    'DurableStreamsRouting',
    'Entry',
    'EventLogStreamStoreOptions',
    'Gone',
    'NotFound',
    'Offset',
    'Producer',
    'ReadBatch',
    'ReadOptions',
    'ServeOptions',
    'ServeStreamOptions',
    'StreamConfig',
    'StreamInfo',
  ],
};
