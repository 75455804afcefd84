// The seam between the Durable Streams protocol (HTTP: headers, status codes, SSE, long-poll) and where a stream's
// data lives. The handler speaks HTTP and checks syntax; a store keeps streams and decides every rule about their
// state (config matching, closure, producers, forks). `eventLogStreamStore` keeps them in an `EventLog` (memory or
// Redis, any instance serving any stream); the gateway serves recorded responses through a read-only one.

/** A position in a stream: an opaque token, lexicographically sortable, never `-1` or `now` (see offsets.ts). */
export type Offset = string;

/**
 * One unit of a stream's data. A JSON-mode stream (`application/json`) holds one entry per message (its JSON text); any
 * other stream one entry per append (its bytes). A `string` is UTF-8 text.
 */
export type Entry = string | Uint8Array;

/** How a stream was asked to be, at creation. */
export interface StreamConfig {
  /** The media type as created, e.g. `application/json` or `text/plain; charset=utf-8`. */
  readonly contentType: string;
  /** Sliding time-to-live in seconds: reads and writes (not HEAD) restart it. At most one of `ttlSeconds`, `expiresAt`. */
  readonly ttlSeconds?: number;
  /** Absolute expiry, the RFC 3339 text as given. */
  readonly expiresAt?: string;
  /** The source stream's path when this stream is a fork. */
  readonly forkedFrom?: string;
  /** Where the fork diverges (the source's tail when the request named none). */
  readonly forkOffset?: Offset;
}

/** What HEAD shows and every response's headers come from. */
export interface StreamInfo extends StreamConfig {
  /** Identifies this incarnation of the stream (a stream deleted and created again gets another): ETags start with it. */
  readonly id: string;
  /** The offset after the last entry (`Stream-Next-Offset` at the end). */
  readonly tail: Offset;
  readonly closed: boolean;
}

export interface NotFound {
  readonly status: 'not_found';
}
/** Deleted while forks still read it (410 for direct access, 409 for a create at its path). */
export interface Gone {
  readonly status: 'gone';
}
/** The stream would grow past what the store keeps per stream (413): the request changed nothing. */
export interface TooLarge {
  readonly status: 'too_large';
}
/** A request the store refuses as malformed (400), with the reason for the body. */
export interface BadRequest {
  readonly status: 'bad_request';
  readonly reason: string;
}

export interface CreateRequest {
  /** The config asked for, `contentType` already defaulted (`application/octet-stream`), fork fields as given. */
  readonly config: StreamConfig;
  /** `Stream-Fork-Sub-Offset` (0 when absent). */
  readonly forkSubOffset: number;
  /** Created closed (`Stream-Closed: true`). */
  readonly closed: boolean;
  /** The initial entries (a JSON body already flattened one level; may be empty). */
  readonly entries: readonly Entry[];
}

export type CreateResult =
  | { readonly status: 'created'; readonly info: StreamInfo }
  /** The stream exists with the same content type, TTL/expiry, closure and fork: 200, nothing written. */
  | { readonly status: 'exists'; readonly info: StreamInfo }
  /** Exists with another config, or its path belongs to a soft-deleted stream, or the content type differs from a fork's source: 409. */
  | { readonly status: 'conflict'; readonly reason: string }
  /** The fork's source does not exist: 404. */
  | { readonly status: 'source_not_found' }
  | TooLarge
  | BadRequest;

/** The idempotent producer headers, all three present and valid. */
export interface Producer {
  readonly id: string;
  readonly epoch: number;
  readonly seq: number;
}

export interface AppendRequest {
  /** The request's media type; absent only for a close without a body (never compared then). */
  readonly contentType?: string;
  /** The entries to append (a JSON body flattened one level); empty only for a close without a body. */
  readonly entries: readonly Entry[];
  /** `Stream-Closed: true`: close after these entries, atomically with them. */
  readonly close: boolean;
  /** `Stream-Seq`: must be greater (byte-wise) than the stream's last one. */
  readonly streamSeq?: string;
  readonly producer?: Producer;
}

export type AppendResult =
  /** Stored (or closed): 204, or 200 with a producer. `producer` echoes the epoch and the highest accepted seq. */
  | { readonly status: 'appended'; readonly tail: Offset; readonly closed: boolean; readonly producer?: { readonly epoch: number; readonly seq: number } }
  /** A producer's retry of what is already stored (or of the append that closed the stream): 204. */
  | { readonly status: 'duplicate'; readonly tail: Offset; readonly closed: boolean; readonly producer: { readonly epoch: number; readonly seq: number } }
  /** The stream is closed and this is not the append that closed it: 409 with `Stream-Closed: true`. */
  | { readonly status: 'closed'; readonly tail: Offset }
  /** 409: the content type differs from the stream's. */
  | { readonly status: 'content_type_mismatch' }
  /** 409: `Stream-Seq` not above the last one. */
  | { readonly status: 'stream_seq_conflict' }
  /** 403: the producer's epoch is older than the stream's; `epoch` is the current one. */
  | { readonly status: 'stale_epoch'; readonly epoch: number }
  /** 409: the producer skipped sequence numbers. */
  | { readonly status: 'producer_seq_gap'; readonly expected: number; readonly received: number }
  | NotFound
  | Gone
  | TooLarge
  | BadRequest;

/** What a catch-up read returns. */
export interface ReadBatch {
  readonly info: StreamInfo;
  /** The entries after the requested offset, in order, up to the read's byte budget (at least one when any exists). */
  readonly entries: readonly Entry[];
  /** Where to read next: after the last entry returned, or the requested offset when none. */
  readonly next: Offset;
  /** Nothing exists after `next` right now. */
  readonly upToDate: boolean;
  /** The stream is closed and `next` is its end. */
  readonly closed: boolean;
}

export interface ReadOptions {
  /** The byte budget of one read; a first entry larger than it is still returned whole. */
  readonly maxBytes: number;
}

/**
 * Where streams live. Every method names the stream by its URL path (`/v1/stream/a/b`), which is also how forks name
 * their source. A read-only store leaves out `create`, `append` and `delete` (the handler answers 405). A store that
 * cannot reach its storage rejects (the handler answers 503 without details).
 */
export interface DurableStreamStore {
  /** The stream's state. `touch`: a read or write, which restarts a sliding TTL (HEAD does not). */
  info(path: string, touch: boolean): Promise<StreamInfo | NotFound | Gone>;
  /**
   * The entries after `offset` (`-1`: from the start; `now`: none, `next` the tail). An offset this store never
   * minted (malformed) is a `BadRequest`.
   */
  read(path: string, offset: Offset, options: ReadOptions): Promise<ReadBatch | NotFound | Gone | BadRequest>;
  /**
   * Resolves `true` as soon as the stream has an entry after `offset` or is closed, `false` after `timeoutMs` or on
   * `signal`'s abort (never rejects for those). For a fork, appends to its source never wake it.
   */
  wait(path: string, offset: Offset, timeoutMs: number, signal: AbortSignal): Promise<boolean>;
  create?(path: string, request: CreateRequest): Promise<CreateResult>;
  append?(path: string, request: AppendRequest): Promise<AppendResult>;
  /** 204 when deleted (soft when forks read it), 404 or 410. */
  delete?(path: string): Promise<{ readonly status: 'deleted' } | NotFound | Gone>;
}
