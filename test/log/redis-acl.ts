// The least-privilege Redis ACL user of docs/durable-log.md, for the tests: the `ACL SETUSER` line is read from
// that page (so the page says what the tests run), applied on a test server under another name and password,
// with commands dropped or key patterns changed for the tests of a refusal. And what Redis refused since.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';

const DOC = join(__dirname, '..', '..', 'docs', 'durable-log.md');

/** The documented line's words after `ACL SETUSER <name>`, the password written `>PASSWORD`. */
export function documentedAclRules(): string[] {
  const line = readFileSync(DOC, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('ACL SETUSER openai-rx '));
  if (line === undefined) throw new Error(`no "ACL SETUSER openai-rx …" line in ${DOC}`);
  return line.trim().split(/\s+/).slice(3);
}

/** The `+command` rules of the documented line, without the `+`. */
export const documentedCommands = (): string[] => documentedAclRules().filter((r) => r.startsWith('+')).map((r) => r.slice(1));

export interface AclUserOptions {
  /** Commands (as in the line, e.g. `xadd`) left out of it. */
  readonly without?: readonly string[];
  /** Key patterns in place of the line's (`~…`), e.g. `['~other:*']`. */
  readonly keys?: readonly string[];
  /** Rules added to the line (e.g. what a Cluster client needs). */
  readonly extra?: readonly string[];
}

/** The password `aclUser` gives `name`. */
export const aclPassword = (name: string): string => `pw-${name}-${process.pid}`;

/**
 * Creates (or resets) user `name` on the server of `admin` with the documented rules (changed as `options`
 * says) and returns the `redis://name:password@host:port` URL to connect as it.
 */
export async function aclUser(admin: Redis, port: number, name: string, options: AclUserOptions = {}): Promise<string> {
  const password = aclPassword(name);
  const without = new Set((options.without ?? []).map((c) => `+${c}`));
  let rules = documentedAclRules()
    .filter((r) => !without.has(r))
    .map((r) => (r === '>PASSWORD' ? `>${password}` : r));
  if (options.keys !== undefined) rules = [...rules.filter((r) => !r.startsWith('~')), ...options.keys];
  rules.push(...(options.extra ?? []));
  await admin.call('ACL', 'SETUSER', name, 'reset', ...rules);
  return `redis://${encodeURIComponent(name)}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
}

/** What Redis refused to `name` (ACL LOG: command, key, channel or auth), oldest first, as `reason object`. */
export async function refusedTo(admin: Redis, name: string): Promise<string[]> {
  const log = (await admin.call('ACL', 'LOG', '1000')) as unknown[][];
  const out: string[] = [];
  for (const entry of log) {
    const f = new Map<string, unknown>();
    for (let i = 0; i + 1 < entry.length; i += 2) f.set(String(entry[i]), entry[i + 1]);
    if (f.get('username') === name) out.unshift(`${String(f.get('reason'))} ${String(f.get('object'))}`);
  }
  return out;
}
