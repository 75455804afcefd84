// The defaults the log's users share, in one place: the memory and Redis logs keep streams alike, and the
// gateway waits and leases as fromEventLog and persistTo do, so that one deployment does not answer one way
// through the gateway and another through the library.

/**
 * How long a reader waits for a stream that is not in the log yet (fromEventLog's `not_found`, the gateway's
 * 404), in ms. The gap it covers is between a client learning a response id and the producer's first write
 * landing; a refusal is final for the client while a wait costs one held request, so the longer of the two
 * values the package once had (the gateway waited 2 s, fromEventLog 5 s).
 */
export const DEFAULT_NOT_FOUND_TIMEOUT_MS = 5000;

/** A producer's lease, in ms: how soon another reader or instance may take a dead producer's stream over. */
export const DEFAULT_LEASE_MS = 10_000;

/** How long an ended stream is kept, and a live one after its last write, in ms (both logs). */
export const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;

/** Most events one stream may hold (both logs). */
export const DEFAULT_MAX_EVENTS = 100_000;

/** Most bytes (UTF-8 JSON of the events) one stream may hold (both logs): a 64 MiB image event fits alone. */
export const DEFAULT_MAX_STREAM_BYTES = 64 * 1024 * 1024;

/** Most bytes (UTF-8 JSON of the events) the memory log holds over all its streams (Redis bounds its own memory). */
export const DEFAULT_MAX_TOTAL_BYTES = 512 * 1024 * 1024;
