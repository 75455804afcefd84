import { config } from 'rxjs';

/**
 * What rxjs does with an error nobody can be told of any more (an observer's handler threw, or its subscriber had
 * already ended): `config.onUnhandledError`, else thrown on a timer. Never thrown into the caller, which is often
 * a socket's listener or a producer that must run on.
 */
export function reportUnhandled(err: unknown): void {
  setTimeout(() => {
    const { onUnhandledError } = config;
    if (onUnhandledError) onUnhandledError(err);
    else throw err;
  });
}
