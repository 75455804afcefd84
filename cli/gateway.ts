// `openai-rx gateway`: createGateway on a port, until SIGINT / SIGTERM. `--fake` puts the fake provider behind
// it (offline, no key), so the whole thing can be tried with the SDK or `curl -N`.
import { createServer } from 'node:http';
import { createGateway } from '../gateway/index.js';
import { DEFAULT_BASE_URL } from '../lib/http/config.js';
import { startFakeProvider, type FakeProvider } from '../testing/fake-provider.js';
import { CLIError, parse, usage } from './args.js';
import { untilInterrupted } from './interrupted.js';
import { hostUrl, listenOrExplain } from './listen.js';
import type { IO } from './run.js';
import { outFor, paint } from './style.js';

export async function runGateway(argv: readonly string[], io: IO): Promise<number> {
  const a = parse(
    argv,
    { port: 'string', host: 'string', upstream: 'string', redis: 'string', background: 'boolean', fake: 'boolean', 'lease-ms': 'string', 'fake-delay': 'string', 'pass-through': 'string', 'access-log': 'boolean' },
    0,
  );
  const port = a.flags.port === undefined ? 8080 : a.int('port', { max: 65535, what: '0 picks a free port' });
  const host = typeof a.flags.host === 'string' ? a.flags.host : '127.0.0.1';
  const leaseMs = a.flags['lease-ms'] === undefined ? undefined : a.int('lease-ms', { min: 100, max: 600_000, what: 'milliseconds' });
  const fakeDelay = a.flags['fake-delay'] === undefined ? 20 : a.int('fake-delay', { max: 60_000, what: 'milliseconds between events' });
  if (a.flags.fake && a.flags.upstream !== undefined) throw usage('--fake and --upstream exclude each other (--fake is the upstream)');
  if (a.flags['fake-delay'] !== undefined && !a.flags.fake) throw usage('--fake-delay applies to --fake only');
  const redis = typeof a.flags.redis === 'string' ? a.flags.redis : undefined;
  if (redis !== undefined && !/^rediss?:\/\//.test(redis)) throw usage('--redis takes a redis:// or rediss:// URL');
  // Comma-separated "METHOD /v1/path" patterns: createGateway's passThrough (checked there, named here).
  const passThrough = typeof a.flags['pass-through'] === 'string' ? a.flags['pass-through'].split(',').map((p) => p.trim()).filter(Boolean) : undefined;

  const out = outFor(io.stdout, io.env);
  const log = (t: string): void => void io.stdout.write(`${t}\n`);
  let provider: FakeProvider | undefined;
  if (a.flags.fake) provider = await startFakeProvider({ host: '127.0.0.1', eventDelayMs: fakeDelay });
  // An empty OPENAI_BASE_URL is unset (as the SDK and the library read it).
  const fromEnv = io.env['OPENAI_BASE_URL'] || undefined;
  const flag = typeof a.flags.upstream === 'string' ? a.flags.upstream : undefined;
  const upstream = provider?.baseURL ?? flag ?? fromEnv ?? DEFAULT_BASE_URL;

  let gateway;
  try {
    gateway = createGateway({
      upstream: { baseURL: upstream }, ...(redis ? { log: redis } : {}), background: a.flags.background === true, ...(leaseMs !== undefined ? { leaseMs } : {}),
      ...(passThrough ? { passThrough } : {}), ...(a.flags['access-log'] === true ? { accessLog: 'stdout' as const } : {}),
    });
  } catch (e) {
    await provider?.close();
    const message = e instanceof Error ? e.message : String(e);
    const option = /passThrough/.test(message) ? '--pass-through' : flag !== undefined ? '--upstream' : 'OPENAI_BASE_URL';
    throw new CLIError(`${option}: ${message}`, 2);
  }
  const server = createServer(gateway);
  const listening = await listenOrExplain(server, port, host, async () => {
    await gateway.close();
    await provider?.close();
  });
  const interrupted = untilInterrupted(io); // before the ready lines: a signal sent on reading them must be handled
  const base = `${hostUrl(host, listening.port)}/v1`;
  log(`${paint(out, 'bold', 'openai-rx gateway')} at ${paint(out, 'cyan', base)} → ${provider ? `the fake provider (${upstream})` : upstream}`);
  log(`log: ${redis ? redis.replace(/\/\/[^@/]*@/, '//[credentials]@') : 'memory (this process only)'}${a.flags.background ? '; upstream responses run in the background (any instance can take over)' : ''}`);
  // The key as the shell's variable, in double quotes so that the shell expands it (single quotes would send
  // the text "$OPENAI_API_KEY"); the fake takes any key.
  const authorization = provider ? `'authorization: Bearer any-key'` : `"authorization: Bearer $OPENAI_API_KEY"`;
  log(paint(out, 'dim', `try: curl -N ${base}/responses -H ${authorization} -H 'content-type: application/json' -d '{"model":"${provider ? 'fake-model' : 'gpt-5.4-nano'}","input":"Hi","stream":true}'`));
  log(paint(out, 'dim', `     OPENAI_BASE_URL=${base} your-app   (Ctrl-C stops)`));

  await interrupted;
  await listening.stop(() => gateway.close());
  await provider?.close();
  log('stopped');
  return 0;
}
