// The optional peer dependencies (`ws`, `ioredis`), loaded by the call that needs one, never at import: the
// entries load (and bundle for a browser) without them, and a missing one is named with how to install it.
import { MissingPeerDependencyError } from './errors.js';

/** Whether `e` says that the package `name` itself is not installed (not that something it needs is missing). */
export function isMissingPackage(e: unknown, name: string): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { code, message } = e as { code?: unknown; message?: unknown };
  // CommonJS (and jest): MODULE_NOT_FOUND, "Cannot find module 'ws'"; ES modules: "Cannot find package 'ws' imported from …".
  if (code !== 'MODULE_NOT_FOUND' && code !== 'ERR_MODULE_NOT_FOUND') return false;
  return typeof message === 'string' && /^Cannot find (?:module|package) (['"])(.+?)\1/.exec(message)?.[2] === name;
}

/**
 * The module `name` (`ws` or `ioredis`); `MissingPeerDependencyError` naming it and `feature` when it is not
 * installed, any other failure to load it as it is.
 */
export async function loadPeer(name: 'ws' | 'ioredis', feature: string): Promise<unknown> {
  // The specifier is a variable: bundlers leave it alone (a browser build never includes ws or ioredis), and
  // Node resolves it at run time, in the ES build (import) and the CommonJS one (tsc emits a require) alike.
  const specifier: string = name;
  try {
    return (await import(/* webpackIgnore: true */ /* @vite-ignore */ specifier)) as unknown;
  } catch (e) {
    if (isMissingPackage(e, name)) throw new MissingPeerDependencyError(name, feature, undefined, { cause: e });
    throw e;
  }
}
