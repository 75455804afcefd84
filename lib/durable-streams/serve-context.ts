// The settings one request is served with, all defaults applied.

import type { ResponsePolicy } from './responses.js';
import type { DurableStreamStore } from './store.js';

export interface ServeSettings {
  /** How long a long-poll waits before its 204. The reference server uses 30 s. */
  readonly longPollTimeoutMs: number;
  /** An SSE response is ended after this long (the client reconnects from its last offset), for CDN collapsing. */
  readonly sseMaxDurationMs: number;
  /** The byte budget of one catch-up read (a first entry larger than it is still sent whole). */
  readonly maxReadBytes: number;
  /** The largest request body accepted (413 above it). */
  readonly maxAppendBytes: number;
  readonly policy: ResponsePolicy;
}

export interface ServeContext extends ServeSettings {
  readonly store: DurableStreamStore;
  /** The stream's path, as the store names it (also how forks name their source). */
  readonly path: string;
}

export const DEFAULT_SETTINGS: Omit<ServeSettings, 'policy'> = {
  longPollTimeoutMs: 30_000,
  sseMaxDurationMs: 60_000,
  maxReadBytes: 1024 * 1024,
  maxAppendBytes: 16 * 1024 * 1024,
};
