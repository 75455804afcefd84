import { lastValueFrom, toArray } from 'rxjs';
import { fromResponsesSSE } from '../../lib/index';
import { fixture, payloads } from '../helpers/fixtures';

test('plain transcript decodes to its payloads', async () => {
  const sse = fixture('plain-text');
  const events = await lastValueFrom(fromResponsesSSE(sse).pipe(toArray()));
  expect(events).toEqual(payloads(sse));
});
