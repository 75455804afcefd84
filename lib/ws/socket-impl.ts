// Which WebSocket a connection on Node opens. `ws` is an optional peer dependency, loaded here, when a socket
// is opened: it sends the handshake's headers (the API key, `config.headers`), caps frames and pings. Without
// it, the global `WebSocket` (Node 22+) serves a connection that needs no headers, which that one cannot send.
import { MissingPeerDependencyError } from '../errors.js';
import { loadPeer } from '../peer.js';
import type { WebSocketConstructorLike } from './types.js';

const FEATURE = 'connectResponsesSocket';

/** A constructor and how it is called: `ws`-style (`(url, { headers, … })`) or WHATWG (`(url)`). */
export interface SocketImplementation {
  readonly Ctor: WebSocketConstructorLike;
  readonly nodeStyle: boolean;
}

/** The global `WebSocket`, when this runtime has one. */
export const globalWebSocket = (): WebSocketConstructorLike | undefined => (globalThis as { WebSocket?: WebSocketConstructorLike }).WebSocket;

/** `ws`'s WebSocket constructor (`MissingPeerDependencyError` when ws is not installed). */
export async function loadWs(): Promise<WebSocketConstructorLike> {
  const mod = (await loadPeer('ws', FEATURE)) as { WebSocket?: WebSocketConstructorLike; default?: WebSocketConstructorLike };
  const Ctor = mod.WebSocket ?? mod.default;
  if (typeof Ctor !== 'function') throw new Error('ws has no WebSocket export');
  return Ctor;
}

/**
 * The WebSocket for a connection on Node: `ws` when installed; else the global `WebSocket` when there is one
 * and the connection sends no headers (`needsHeaders` false); else `MissingPeerDependencyError` naming ws.
 * `load` and `global` are there for tests.
 */
export async function nodeWebSocket(
  needsHeaders: boolean,
  load: () => Promise<WebSocketConstructorLike> = loadWs,
  global: WebSocketConstructorLike | undefined = globalWebSocket(),
): Promise<SocketImplementation> {
  try {
    return { Ctor: await load(), nodeStyle: true };
  } catch (e) {
    if (!(e instanceof MissingPeerDependencyError)) throw e;
    if (global === undefined) throw new MissingPeerDependencyError('ws', FEATURE, '(this Node has no global WebSocket)', { cause: e.cause });
    // The global one would open the connection without them: an unauthenticated socket, refused later and less clearly.
    if (needsHeaders) throw new MissingPeerDependencyError('ws', FEATURE, "to send the connection's headers (the API key, config.headers), which the global WebSocket cannot", { cause: e.cause });
    return { Ctor: global, nodeStyle: false };
  }
}
