// `createDurableStreamsHandler`: the Durable Streams protocol for node:http, every stream under one URL prefix
// kept in one store. Usable as `http.createServer(handler)` or called from another server's listener.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventLog } from '../log/types.js';
import { eventLogStreamStore } from './log-store.js';
import type { EventLogStreamStoreOptions } from './log-store-options.js';
import { send } from './responses.js';
import { resolveSettings, serveWith, type ServeOptions } from './serve.js';
import type { DurableStreamStore } from './store.js';

/** Where the streams live: a store, or an event log kept by `eventLogStreamStore` (exactly one of the two). */
export type DurableStreamsHandlerOptions = DurableStreamsRouting &
  (
    | { readonly store: DurableStreamStore; readonly log?: never }
    | { readonly log: EventLog; readonly store?: never; readonly logStore?: EventLogStreamStoreOptions }
  );

export interface DurableStreamsRouting extends ServeOptions {
  /** The URL path the streams live under (default `/v1/stream/`); a stream's path is its whole URL path. */
  readonly prefix?: string;
  /** Requests outside the prefix go here; without it they get a 404. */
  readonly next?: (req: IncomingMessage, res: ServerResponse) => void;
}

export type DurableStreamsListener = (req: IncomingMessage, res: ServerResponse) => void;

export function createDurableStreamsHandler(options: DurableStreamsHandlerOptions): DurableStreamsListener {
  const prefix = options.prefix ?? '/v1/stream/';
  const settings = resolveSettings(options);
  if ((options.store === undefined) === (options.log === undefined)) {
    throw new TypeError('createDurableStreamsHandler: give exactly one of `store` and `log`');
  }
  const store = options.store ?? eventLogStreamStore(options.log, options.logStore);
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (!path.startsWith(prefix) || path.length === prefix.length) {
      if (options.next !== undefined) return options.next(req, res);
      return send(res, settings.policy, 404, {}, 'not found');
    }
    void serveWith(req, res, { ...settings, store, path });
  };
}
