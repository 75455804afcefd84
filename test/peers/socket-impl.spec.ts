// Which WebSocket a Node connection opens (lib/ws/socket-impl.ts): `ws` when installed, else the global one
// for a connection without headers, else an error naming ws. ws is installed here and Node 20 has no global
// WebSocket, so the loader and the global are injected.
import { execFileSync } from 'node:child_process';
import { MissingPeerDependencyError } from '../../lib/errors';
import { isMissingPackage, loadPeer } from '../../lib/peer';
import { loadWs, nodeWebSocket } from '../../lib/ws/socket-impl';
import type { WebSocketConstructorLike } from '../../lib/ws/types';

const Global = class {} as unknown as WebSocketConstructorLike;
const Ws = class {} as unknown as WebSocketConstructorLike;
const installed = (): Promise<WebSocketConstructorLike> => Promise.resolve(Ws);
const missing = (): Promise<WebSocketConstructorLike> => Promise.reject(new MissingPeerDependencyError('ws', 'connectResponsesSocket'));

describe('nodeWebSocket', () => {
  test('ws when installed, ws-style, even where a global WebSocket exists (it sends the headers)', async () => {
    expect(await nodeWebSocket(true, installed, Global)).toEqual({ Ctor: Ws, nodeStyle: true });
    expect(await nodeWebSocket(false, installed, Global)).toEqual({ Ctor: Ws, nodeStyle: true });
  });

  test('without ws, the global WebSocket for a connection that sends no headers', async () => {
    expect(await nodeWebSocket(false, missing, Global)).toEqual({ Ctor: Global, nodeStyle: false });
  });

  test('without ws, a connection with headers is refused, naming ws: the global one would open it unauthenticated', async () => {
    const e = await nodeWebSocket(true, missing, Global).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(MissingPeerDependencyError);
    expect(e).toMatchObject({ packageName: 'ws', code: 'missing_peer_dependency', retryable: false });
    expect((e as Error).message).toMatch(/^connectResponsesSocket needs the optional peer dependency 'ws' to send the connection's headers .*: npm install ws$/);
  });

  test('without ws and without a global WebSocket (Node 20), the error names ws', async () => {
    const e = await nodeWebSocket(false, missing, undefined).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(MissingPeerDependencyError);
    expect((e as Error).message).toBe("connectResponsesSocket needs the optional peer dependency 'ws' (this Node has no global WebSocket): npm install ws");
  });

  test('another failure to load ws is not taken for a missing ws (no fallback)', async () => {
    const broken = new Error('ws is broken');
    await expect(nodeWebSocket(false, () => Promise.reject(broken), Global)).rejects.toBe(broken);
  });

  test('the real loader finds the installed ws', async () => {
    expect(await loadWs()).toBe((await import('ws')).WebSocket);
  });
});

/** What Node itself says of a package that is not installed, as `require` (CommonJS) and as `import` (ES modules). */
function nodeErrors(name: string): { code: string; message: string }[] {
  const script = `
    const out = [];
    try { require(${JSON.stringify(name)}); } catch (e) { out.push({ code: e.code, message: e.message }); }
    import(${JSON.stringify(name)}).catch((e) => { out.push({ code: e.code, message: e.message }); console.log(JSON.stringify(out)); });`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: '/', encoding: 'utf8' })) as { code: string; message: string }[];
}

describe('isMissingPackage', () => {
  test("Node's own errors for a package that is not installed, CommonJS and ES modules", () => {
    const errors = nodeErrors('openai-rx-not-installed');
    expect(errors.map((e) => e.code)).toEqual(['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND']);
    for (const e of errors) {
      expect(isMissingPackage(e, 'openai-rx-not-installed')).toBe(true);
      // Another package's name: a package whose own dependency is missing is installed, not missing.
      expect(isMissingPackage(e, 'openai-rx')).toBe(false);
    }
  });

  test('anything else is not a missing package', () => {
    expect(isMissingPackage(new Error("Cannot find module 'ws'"), 'ws')).toBe(false); // no code
    expect(isMissingPackage(Object.assign(new Error('boom'), { code: 'MODULE_NOT_FOUND' }), 'ws')).toBe(false);
    expect(isMissingPackage(undefined, 'ws')).toBe(false);
  });

  test('loadPeer loads an installed peer', async () => {
    expect(((await loadPeer('ws', 'test')) as { WebSocket: unknown }).WebSocket).toBe((await import('ws')).WebSocket);
  });
});
