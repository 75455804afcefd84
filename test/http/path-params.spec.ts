// Path parameters cannot change the request's path: a response id with `/ ? # % ..` (or anything outside the
// ids seen in the wild) is refused with an InvalidOptionError before anything is sent; the rest is encoded.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lastValueFrom, toArray } from 'rxjs';
import { InvalidOptionError } from '../../lib/errors';
import { retrieveResponseStream } from '../../lib/http/transports';
import { fixture } from '../helpers/fixtures';

let server: Server;
let baseURL: string;
const seen: string[] = [];
beforeAll(async () => {
  const sse = fixture('plain-text');
  server = createServer((req, res) => {
    req.resume();
    seen.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(sse);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }));
beforeEach(() => void (seen.length = 0));

async function outcome(id: string, startingAfter?: number): Promise<unknown> {
  try {
    return await lastValueFrom(retrieveResponseStream(id, { startingAfter }, { baseURL, apiKey: 'k' }).pipe(toArray()));
  } catch (e) {
    return e;
  }
}

test.each(['..', '.', '../../admin', '../', 'resp_1/../../files', 'resp_1/cancel', 'resp_1?stream=false', 'resp_1#x', 'resp_1%2F..', '%2e%2e', 'resp 1', 'resp_1\n', '', 'x'.repeat(300), '-resp', 'resp_1..2'])(
  'the id %j is refused, nothing is sent',
  async (id) => {
    const e = await outcome(id);
    expect(e).toBeInstanceOf(InvalidOptionError);
    expect(e).toMatchObject({ code: 'invalid_option', option: 'responseId', retryable: false });
    expect(seen).toEqual([]);
  },
);

test.each([
  ['resp_68cbe02f31428190b4c5d6e7f8a9b0c1', '/v1/responses/resp_68cbe02f31428190b4c5d6e7f8a9b0c1?stream=true'],
  ['0a6f2c1e-3b4d-4e5f-8a9b-0c1d2e3f4a5b', '/v1/responses/0a6f2c1e-3b4d-4e5f-8a9b-0c1d2e3f4a5b?stream=true'],
  ['gen:abc.1~2', '/v1/responses/gen%3Aabc.1~2?stream=true'],
])('the id %s is sent encoded as %s', async (id, path) => {
  await outcome(id);
  expect(seen).toEqual([path]);
});

test.each([Number.NaN, -1, 1.5, Number.POSITIVE_INFINITY, 2 ** 60])('startingAfter %p is refused', async (n) => {
  const e = await outcome('resp_1', n);
  expect(e).toBeInstanceOf(InvalidOptionError);
  expect(e).toMatchObject({ option: 'startingAfter' });
  expect(seen).toEqual([]);
});
