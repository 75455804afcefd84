import type { LogScope } from './types.js';

/** Escapes what would change a key's meaning: `{` `}` (the hash tag), `:` (the separator) and `%` itself. */
const escapeKey = (s: string): string => s.replace(/[%{}:]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** What the keys of one response's stream start with: `<keyPrefix>{owner:responseId}`; then `:meta`, `:events`, `:end`. */
export const streamKeyBase = (keyPrefix: string, scope: LogScope): string => `${keyPrefix}{${escapeKey(scope.owner ?? '')}:${escapeKey(scope.responseId)}}`;

/** The keys of one response's stream: they share the hash tag `{owner:responseId}`, so one Cluster slot. */
export function redisStreamKeys(keyPrefix: string, scope: LogScope): { meta: string; events: string; end: string } {
  const base = streamKeyBase(keyPrefix, scope);
  return { meta: `${base}:meta`, events: `${base}:events`, end: `${base}:end` };
}

/** The KEYS of every script on one stream, in the scripts' order. */
export const streamKeyList = (keyPrefix: string, scope: LogScope): string[] => {
  const k = redisStreamKeys(keyPrefix, scope);
  return [k.meta, k.events, k.end];
};
