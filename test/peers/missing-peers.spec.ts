// A socket or a Redis log whose optional peer dependency is not installed: the call that needs it fails with
// an error naming the package (never the import). Here ws and ioredis are installed, so their loading is made
// to fail as Node's does for a package that is not (test/package/optional-peers.spec.ts does it for real).
import { lastValueFrom, toArray } from 'rxjs';
import { EventLogError, MissingPeerDependencyError } from '../../lib/errors';
import { redisEventLog } from '../../lib/log/redis';
import { connectResponsesSocket } from '../../lib/ws/socket';
import type { WebSocketConstructorLike } from '../../lib/ws/types';

const notInstalled = (name: string): Error => Object.assign(new Error(`Cannot find module '${name}'\nRequire stack:\n- ${__filename}`), { code: 'MODULE_NOT_FOUND' });
jest.mock('ws', () => {
  throw notInstalled('ws');
});
jest.mock('ioredis', () => {
  throw notInstalled('ioredis');
});

const URL = 'ws://127.0.0.1:9/v1/responses';

describe('a WebSocket on Node without ws', () => {
  const saved = (globalThis as { WebSocket?: unknown }).WebSocket;
  afterEach(() => {
    (globalThis as { WebSocket?: unknown }).WebSocket = saved;
  });

  test('without a global WebSocket (Node 20), events$ errors with MissingPeerDependencyError naming ws; the socket closes', async () => {
    const socket = connectResponsesSocket({ url: URL, apiKey: '' });
    const states = lastValueFrom(socket.state$.pipe(toArray()));
    const e = await lastValueFrom(socket.events$).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(MissingPeerDependencyError);
    expect(e).toMatchObject({ packageName: 'ws', retryable: false });
    expect((e as Error).message).toMatch(/^connectResponsesSocket needs the optional peer dependency 'ws'.*: npm install ws$/);
    expect(await states).toEqual(['connecting', 'closed']);
  });

  test('a response over it fails with that error too', async () => {
    const socket = connectResponsesSocket({ url: URL, apiKey: '' });
    const e = await lastValueFrom(socket.response({ model: 'gpt-5.4-nano', input: 'Hi' })).catch((err: unknown) => err);
    expect(String((e as Error).message)).toContain("needs the optional peer dependency 'ws'");
  });

  describe('with a global WebSocket (Node 22+, injected here)', () => {
    let made: unknown[][];
    beforeEach(() => {
      made = [];
      (globalThis as { WebSocket?: unknown }).WebSocket = class {
        readyState = 0;
        binaryType = 'blob';
        private readonly listeners = new Map<string, ((ev: unknown) => void)[]>();
        constructor(...args: unknown[]) {
          made.push(args);
        }
        send(): void {}
        close(code = 1000): void {
          setTimeout(() => this.listeners.get('close')?.forEach((l) => l({ code, reason: '' })), 0);
        }
        addEventListener(type: string, l: (ev: unknown) => void): void {
          this.listeners.set(type, [...(this.listeners.get(type) ?? []), l]);
        }
      } as unknown as WebSocketConstructorLike;
    });

    test('a connection without headers opens the global one, with the URL only', async () => {
      const socket = connectResponsesSocket({ url: URL, apiKey: '' });
      // ws is looked for first (asynchronously); the global one is made once it is found missing.
      while (made.length === 0 && socket.state === 'connecting') await new Promise((r) => setTimeout(r, 5));
      expect(made).toEqual([[URL]]);
      socket.close();
      await expect(lastValueFrom(socket.events$.pipe(toArray()))).resolves.toEqual([]);
    });

    test('a connection with an API key or headers is refused naming ws, and the global one is never opened', async () => {
      for (const config of [{ apiKey: 'sk-test-key' }, { apiKey: '', headers: { 'x-tenant': 't1' } }]) {
        const socket = connectResponsesSocket({ url: URL, ...config });
        const e = await lastValueFrom(socket.events$).catch((err: unknown) => err);
        expect(e).toBeInstanceOf(MissingPeerDependencyError);
        expect((e as Error).message).toContain("to send the connection's headers");
        expect((e as Error).message).not.toContain('sk-test-key');
      }
      expect(made).toEqual([]);
    });
  });
});

describe('redisEventLog without ioredis', () => {
  const scope = { responseId: 'resp_1' };

  test('its calls fail with EventLogError missing_dependency, not retryable, naming ioredis; its cause is MissingPeerDependencyError', async () => {
    const log = redisEventLog({ url: 'redis://127.0.0.1:9', retryBudgetMs: 60_000 });
    for (const call of [() => log.state(scope), () => log.read(scope, undefined), () => log.acquire(scope, 60_000)]) {
      const e = await call().then(() => undefined, (err: unknown) => err);
      expect(e).toBeInstanceOf(EventLogError);
      expect(e).toMatchObject({ reason: 'missing_dependency', retryable: false, responseId: 'resp_1' });
      expect((e as Error).message).toBe("missing_dependency: redisEventLog needs the optional peer dependency 'ioredis': npm install ioredis (response resp_1)");
      expect((e as Error).cause).toBeInstanceOf(MissingPeerDependencyError);
    }
    await log.close();
  });

  test('a follower is told the same', async () => {
    const log = redisEventLog({ url: 'redis://127.0.0.1:9' });
    const e = await new Promise<EventLogError>((resolve) => {
      log.follow(scope, undefined, { events: () => undefined, end: () => undefined, error: resolve });
    });
    expect(e).toMatchObject({ reason: 'missing_dependency', responseId: 'resp_1' });
    expect(e.message).toContain('npm install ioredis');
    await log.close();
  });
});
