// One not-found wait: the gateway's resume of a stream not in the log yet and fromEventLog wait the same
// default (DEFAULT_NOT_FOUND_TIMEOUT_MS, 5 s) before they give up; before, the gateway answered 404 after 2 s.
// Lower bounds only: a slow machine makes the waits longer, never shorter.
import { lastValueFrom } from 'rxjs';
import { createGateway } from '../../gateway/index';
import { fromEventLog, memoryEventLog } from '../../index';
import { DEFAULT_NOT_FOUND_TIMEOUT_MS } from '../../lib/log/defaults';
import { closeServer, listen } from './helpers';
import type { AddressInfo } from 'node:net';

jest.setTimeout(30_000);

test('the default is 5 s', () => {
  expect(DEFAULT_NOT_FOUND_TIMEOUT_MS).toBe(5000);
});

test('the gateway waits the default for a stream that never appears, then 404', async () => {
  const gateway = createGateway({ upstream: { baseURL: 'http://127.0.0.1:9/v1' } });
  const server = await listen(gateway);
  try {
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/responses/resp_missing?stream=true`, {
      headers: { authorization: 'Bearer sk-test' },
    });
    await res.text();
    expect(res.status).toBe(404);
    expect(Date.now() - started).toBeGreaterThanOrEqual(DEFAULT_NOT_FOUND_TIMEOUT_MS - 50);
  } finally {
    await closeServer(server);
    await gateway.close();
  }
});

test('fromEventLog waits the same default, then not_found', async () => {
  const started = Date.now();
  const e = await lastValueFrom(fromEventLog(memoryEventLog(), 'resp_missing')).then(() => undefined, (x: unknown) => x);
  expect(e).toMatchObject({ name: 'EventLogError', reason: 'not_found' });
  expect(Date.now() - started).toBeGreaterThanOrEqual(DEFAULT_NOT_FOUND_TIMEOUT_MS - 50);
});
