// The environment, where there is one: Node's `process`, read through globalThis so browsers (no `process`) get nothing.

type ProcessLike = { env?: Record<string, string | undefined>; versions?: { node?: string } };
const proc = (): ProcessLike | undefined => (globalThis as { process?: ProcessLike }).process;

/** An environment variable, or `undefined` when unset, empty, or there is no environment. */
export function env(name: string): string | undefined {
  return proc()?.env?.[name] || undefined;
}

/** Running under Node (where `ws` and `Authorization` headers on sockets are available). */
export function isNode(): boolean {
  return typeof proc()?.versions?.node === 'string';
}
