// The protocol's live-mode cursor (section 10.1): the number of 20 s intervals since 2024-10-09T00:00:00Z, so that
// a CDN's cache key for a long-poll changes with time. A client echoing a cursor at or past the current interval gets
// one strictly greater (1-3600 s of jitter ahead), so a cached empty answer can never loop.

const EPOCH_MS = Date.UTC(2024, 9, 9);
const INTERVAL_MS = 20_000;
const MAX_JITTER_S = 3600;

/** The cursor to answer with, given the client's `cursor` query parameter (if any). */
export function responseCursor(clientCursor: string | undefined, now: number = Date.now(), random: () => number = Math.random): string {
  const current = Math.floor((now - EPOCH_MS) / INTERVAL_MS);
  if (clientCursor === undefined || !/^\d{1,15}$/.test(clientCursor)) return String(current);
  const client = Number(clientCursor);
  if (client < current) return String(current);
  const jitterSeconds = 1 + Math.floor(random() * MAX_JITTER_S);
  return String(client + Math.max(1, Math.ceil((jitterSeconds * 1000) / INTERVAL_MS)));
}
