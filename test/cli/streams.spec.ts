// `openai-rx streams` as a user runs it (the built program, dist/cjs/cli/main.js: `npm run build` first): it prints
// the URL it listens on, serves the protocol under /v1/stream/, keeps streams in memory or in Redis (two instances on
// one Redis serve the same streams), and SIGTERM / SIGINT stop it with status 0 even with a live reader open.
// The whole protocol is checked by the conformance run (scripts/conformance.mjs), not here.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { printed, runNode, type ChildRun } from '../helpers/child-run';
import { startRedisCluster, type RedisCluster } from '../log/redis-cluster-server';
import { startRedisServer, type RedisServer } from '../log/redis-server';

jest.setTimeout(120_000);

const BIN = join(__dirname, '..', '..', 'dist', 'cjs', 'cli', 'main.js');
const cli = (args: string[]): ChildRun => runNode([BIN, 'streams', ...args], { env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' } });

/** The stream base URL it printed (`http://127.0.0.1:PORT/v1/stream/`), once the ready lines are all out. */
const baseOf = (run: ChildRun): Promise<string> => printed(run, /at (http:\/\/127\.0\.0\.1:\d+\/v1\/stream\/) /, (out) => /Ctrl-C stops\)\n/.test(out));

async function stop(run: ChildRun, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  run.child.kill(signal);
  expect(await run.exited).toBe(0);
  expect(run.out()).toMatch(/stopped\n$/);
  expect(run.err()).toBe('');
}

describe('openai-rx streams', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('--port 0: a free port; create, append, read; %s stops it with status 0 while an SSE reader is open', async (signal) => {
    const run = cli(['--port', '0']);
    const base = await baseOf(run);
    expect(run.out()).toContain('log: memory (this process only)\n');
    const url = `${base}cli-${signal}`;
    expect((await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'hello ' })).status).toBe(201);
    expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'world' })).status).toBe(204);
    const read = await fetch(`${url}?offset=-1`);
    expect(read.status).toBe(200);
    expect(await read.text()).toBe('hello world');
    expect(read.headers.get('stream-up-to-date')).toBe('true');
    // A live reader left open when the signal comes does not keep the process alive.
    const live = await fetch(`${url}?offset=now&live=sse`);
    expect(live.status).toBe(200);
    const reader = live.body!.getReader();
    await reader.read();
    await stop(run, signal);
    await reader.read().catch(() => undefined); // ended or cut by the stop: either way done
  });

  it('--long-poll-ms: a long-poll with nothing new ends with 204 after that long (the default is 30 s)', async () => {
    const run = cli(['--port', '0', '--long-poll-ms', '300']);
    const base = await baseOf(run);
    const url = `${base}long-poll`;
    expect((await fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(201);
    // The bound is far above 300 ms and far below the default's 30 s.
    const poll = await fetch(`${url}?offset=now&live=long-poll`, { signal: AbortSignal.timeout(20_000) });
    expect(poll.status).toBe(204);
    expect(poll.headers.get('stream-up-to-date')).toBe('true');
    await stop(run);
  });

  it('the streams live under /v1/stream/ only', async () => {
    const run = cli(['--port', '0']);
    const base = await baseOf(run);
    expect((await fetch(base.replace('/v1/stream/', '/v1/other/x'), { method: 'PUT' })).status).toBe(404);
    await stop(run);
  });

  describe('--redis', () => {
    let redis: RedisServer;
    beforeAll(async () => {
      redis = await startRedisServer();
    });
    afterAll(async () => {
      await redis?.stop();
    });

    it('two instances on one Redis serve the same streams: written through one, read (and tailed) through the other', async () => {
      const a = cli(['--port', '0', '--redis', redis.url]);
      const b = cli(['--port', '0', '--redis', redis.url]);
      const [baseA, baseB] = await Promise.all([baseOf(a), baseOf(b)]);
      expect(a.out()).toContain(`log: ${redis.url}\n`);
      const path = `shared-${Date.now()}`;
      expect((await fetch(`${baseA}${path}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '[{"n":1}]' })).status).toBe(201);
      const first = await fetch(`${baseB}${path}?offset=-1`);
      expect(await first.json()).toEqual([{ n: 1 }]);
      const next = first.headers.get('stream-next-offset')!;
      // A long-poll on B wakes on an append through A.
      const poll = fetch(`${baseB}${path}?offset=${encodeURIComponent(next)}&live=long-poll`);
      await new Promise((r) => setTimeout(r, 200));
      expect((await fetch(`${baseA}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":2}' })).status).toBe(204);
      const woke = await poll;
      expect(woke.status).toBe(200);
      expect(await woke.json()).toEqual([{ n: 2 }]);
      await Promise.all([stop(a), stop(b)]);
    });
  });

  describe('--redis URL --cluster', () => {
    let cluster: RedisCluster;
    beforeAll(async () => {
      cluster = await startRedisCluster({ masters: 3, replicasPerMaster: 0 });
    }, 180_000);
    afterAll(async () => {
      await cluster?.stop();
    }, 60_000);

    it('keeps the streams in a Redis Cluster reached through one of its nodes: an instance on another node reads them', async () => {
      const [one, two] = cluster.startupNodes;
      const a = cli(['--port', '0', '--redis', `redis://127.0.0.1:${one!.port}`, '--cluster']);
      const b = cli(['--port', '0', '--redis', `redis://127.0.0.1:${two!.port}`, '--cluster']);
      const [baseA, baseB] = await Promise.all([baseOf(a), baseOf(b)]);
      expect(a.out()).toContain(`log: Redis Cluster at redis://127.0.0.1:${one!.port}\n`);
      // Several streams, so that their keys land on several masters.
      const paths = Array.from({ length: 6 }, (_, i) => `cluster-${Date.now()}-${i}`);
      for (const p of paths) expect((await fetch(`${baseA}${p}`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: p })).status).toBe(201);
      for (const p of paths) expect(await (await fetch(`${baseB}${p}?offset=-1`)).text()).toBe(p);
      await Promise.all([stop(a), stop(b)]);
    });
  });

  it('a port in use is one line and status 1', async () => {
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as AddressInfo).port;
    try {
      const run = cli(['--port', String(port)]);
      expect(await run.exited).toBe(1);
      expect(run.err()).toBe(`openai-rx: port ${port} on 127.0.0.1 is in use (pick another with --port)\n`);
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });

  it.each([
    [['--port', '-1'], /--port needs a whole number from 0 to 65535/],
    [['--redis', 'localhost:6379'], /--redis takes a redis:\/\/ or rediss:\/\/ URL/],
    [['--cluster'], /--cluster needs --redis URL/],
    [['--long-poll-ms', '0'], /--long-poll-ms needs a whole number from 100 to 600000/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['extra'], /unexpected argument "extra"/],
  ])('%j is a usage error (status 2, one line)', async (args, message) => {
    const run = cli(args);
    expect(await run.exited).toBe(2);
    expect(run.err()).toMatch(message);
    expect(run.err().trim().split('\n')).toHaveLength(1);
  });
});
