import { isTerminalType } from '../events/guards.js';
import type { LogScope } from './types.js';

/** One string per (owner, response id): an owner cannot reach another owner's stream by choosing an id. */
export function scopeKey(scope: LogScope): string {
  return JSON.stringify([scope.owner ?? '', scope.responseId]);
}

/** The events that end a Responses stream, and with it the stream in the log. */
export function isTerminalEvent(e: { readonly type?: unknown }): boolean {
  return isTerminalType(e.type);
}
