import { retryAfterOf } from '../../lib/http/request';
import { lastValueFrom } from 'rxjs';
import { streamResponse } from '../../index';
import { startTestServer } from '../../testing';
import { fixture } from '../helpers/fixtures';

describe('Retry-After', () => {
  const now = Date.parse('2026-11-29T12:00:00Z');
  test.each([
    [{ 'retry-after-ms': '1500' }, 1500],
    [{ 'retry-after': '3' }, 3000],
    [{ 'retry-after': 'Sun, 29 Nov 2026 12:00:07 GMT' }, 7000],
    [{ 'retry-after': 'Sun, 29 Nov 2026 11:59:00 GMT' }, 0],
    [{ 'retry-after': 'soon' }, undefined],
    [{}, undefined],
  ])('%j → %p ms', (headers, expected) => {
    expect(retryAfterOf(new Headers(headers), now)).toBe(expected);
  });

  test('an HTTPError carries what the server asked for', async () => {
    const server = await startTestServer({ transcripts: { plain: fixture('plain-text') }, faults: [{ type: 'status', status: 429, headers: { 'retry-after': '2' } }] });
    try {
      const err = await lastValueFrom(streamResponse({ model: 'plain' }, { baseURL: server.baseURL, apiKey: 'test-key' })).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'HTTPError', status: 429, retryable: true, retryAfterMs: 2000 });
    } finally {
      await server.close();
    }
  });
});
