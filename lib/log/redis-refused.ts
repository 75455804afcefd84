import { EventLogError } from '../errors.js';
import type { LogScope } from './types.js';

// Redis's refusals under an ACL (NOPERM): a command or a key the log's user may not use. They are not an outage
// (retrying changes nothing), so they fail as `EventLogError('forbidden')` naming the command to grant. Inside
// a script, Redis 7.0 names only the script's line ("@user_script:97"): the command is read off that line.

const WHERE = 'docs/durable-log.md, "Least privilege"';

/** The commands a script line calls (`redis.call('XADD', …)`), upper-case; none when the line is unknown. */
function commandsOnLine(script: string, line: number): string[] {
  const text = script.split('\n')[line - 1] ?? '';
  return [...new Set([...text.matchAll(/redis\.p?call\(\s*'([A-Za-z|]+)'/g)].map((m) => m[1]!.toUpperCase()))];
}

/**
 * `e` as `EventLogError('forbidden')` when it is Redis refusing a command or key to this user (NOPERM, or a
 * script's call refused), naming the command (`script`: the Lua text it came from, to read the command off
 * the line Redis names); `undefined` for any other failure.
 */
export function refusal(e: unknown, scope: LogScope | undefined, script?: string): EventLogError | undefined {
  if (e instanceof EventLogError) return e.reason === 'forbidden' ? e : undefined;
  const message = e instanceof Error ? e.message : String(e);
  const inScript = /The user executing the script can't/.test(message);
  if (!inScript && !message.startsWith('NOPERM')) return undefined;
  const detail = message.replace(/\s+/g, ' ').trim();
  if (/access (?:at least )?one of the keys/.test(message)) {
    return new EventLogError('forbidden', `Redis refused this user a key of the log: its ACL needs ~<keyPrefix>* (${WHERE}); Redis said: ${detail}`, scope?.responseId);
  }
  // A Cluster's live channels (lib/log/redis-cluster-live.ts).
  if (/access (?:at least )?one of the channels/.test(message)) {
    return new EventLogError('forbidden', `Redis refused this user a channel of the log: its ACL needs &<keyPrefix>* (${WHERE}); Redis said: ${detail}`, scope?.responseId);
  }
  const named = /run the '([^']+)' command/.exec(message)?.[1];
  const line = /@user_script:(\d+)/.exec(message)?.[1];
  const commands = named !== undefined ? [named.toUpperCase()] : script !== undefined && line !== undefined ? commandsOnLine(script, Number(line)) : [];
  const what = commands.length > 0 ? commands.join(' or ') : 'a command of the log';
  const grant = commands.length > 0 ? commands.map((c) => `+${c.toLowerCase()}`).join(' ') : 'the commands listed there';
  return new EventLogError('forbidden', `Redis refused ${what} to this user: its ACL needs ${grant} (${WHERE}); Redis said: ${detail}`, scope?.responseId);
}

/** Whether `e` is such a refusal. */
export const isRefusal = (e: unknown): boolean => refusal(e, undefined) !== undefined;
