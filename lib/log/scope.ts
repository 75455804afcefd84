import { isTerminalType } from '../events/guards.js';
import type { LogScope } from './types.js';

/** The key last made for a scope object, with what it was made from (an object the caller changed gets a new one). */
interface KeyOf {
  readonly owner: unknown;
  readonly responseId: unknown;
  readonly key: string;
}

const keys = new WeakMap<LogScope, KeyOf>();

/**
 * One string per (owner, response id): an owner cannot reach another owner's stream by choosing an id (the
 * owner's length first, so that no other pair gives the same string). The memory log keys every call with it,
 * an append per event when events come one at a time: a writer passes the same scope object each time, which
 * then gets the same string (its hash already computed for the map it keys) instead of a new one per call.
 */
export function scopeKey(scope: LogScope): string {
  const known = keys.get(scope);
  if (known !== undefined && known.owner === scope.owner && known.responseId === scope.responseId) return known.key;
  const owner = String(scope.owner ?? '');
  const key = `${owner.length}:${owner}${scope.responseId}`;
  keys.set(scope, { owner: scope.owner, responseId: scope.responseId, key });
  return key;
}

/**
 * The events that end a stream in the log: a Responses stream's terminal events, and the close of a durable stream
 * (lib/durable-streams/log-store-events.ts), so that a close is stored atomically with the last entries and ends the
 * log stream for every reader at once.
 */
export function isTerminalEvent(e: { readonly type?: unknown }): boolean {
  return isTerminalType(e.type) || e.type === 'durable_stream.closed';
}
