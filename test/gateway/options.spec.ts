// createGateway's default upstream: OPENAI_BASE_URL (with its /v1), else the OpenAI API; an empty
// OPENAI_BASE_URL counts as unset. Checked on where a forwarded request goes (an injected fetch records it).
import { createGateway } from '../../gateway/index';
import { closeServer, listen } from './helpers';
import type { AddressInfo } from 'node:net';

const saved = process.env['OPENAI_BASE_URL'];
afterEach(() => {
  if (saved === undefined) delete process.env['OPENAI_BASE_URL'];
  else process.env['OPENAI_BASE_URL'] = saved;
});

/** The URL a `GET /v1/models` through a gateway made with `upstream` options reaches. */
async function upstreamURL(options: { baseURL?: string } = {}): Promise<string> {
  const urls: string[] = [];
  const fetch = (async (input: string | URL | Request) => {
    urls.push(String(input));
    return new Response('{"object":"list","data":[]}', { headers: { 'content-type': 'application/json' } });
  }) as typeof globalThis.fetch;
  const gateway = createGateway({ upstream: { ...options, fetch } });
  const server = await listen(gateway);
  try {
    const res = await globalThis.fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/models?limit=2`, { headers: { authorization: 'Bearer sk-test-0' } });
    expect(res.status).toBe(200);
    return urls[0]!;
  } finally {
    await closeServer(server);
    await gateway.close();
  }
}

it.each([
  ['unset', 'https://api.openai.com/v1/models?limit=2', undefined as string | undefined],
  ['empty', 'https://api.openai.com/v1/models?limit=2', ''],
  ['a provider with its /v1', 'http://127.0.0.1:9/compat/v1/models?limit=2', 'http://127.0.0.1:9/compat/v1'],
  ['with a trailing slash', 'http://127.0.0.1:9/v1/models?limit=2', 'http://127.0.0.1:9/v1/'],
])('OPENAI_BASE_URL %s: requests go to %s', async (_, expected, value) => {
  if (value === undefined) delete process.env['OPENAI_BASE_URL'];
  else process.env['OPENAI_BASE_URL'] = value;
  expect(await upstreamURL()).toBe(expected);
});

it('an upstream given in the options wins over OPENAI_BASE_URL', async () => {
  process.env['OPENAI_BASE_URL'] = 'http://127.0.0.1:9/v1';
  expect(await upstreamURL({ baseURL: 'http://127.0.0.1:10/other/v1' })).toBe('http://127.0.0.1:10/other/v1/models?limit=2');
});

it('upstream is an object ({ baseURL, apiKey, fetch }, as fromEventLog takes): a URL string is refused, not read as the default upstream', () => {
  process.env['OPENAI_BASE_URL'] = 'http://127.0.0.1:9/v1';
  const loose = { upstream: 'http://127.0.0.1:10/v1' } as unknown as Parameters<typeof createGateway>[0];
  let thrown: unknown;
  try {
    createGateway(loose).close();
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toMatchObject({ name: 'InvalidOptionError', option: 'upstream', message: 'upstream: expected { baseURL, apiKey?, fetch? }, got a string of 22 characters' });
});
