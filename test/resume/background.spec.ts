import { lastValueFrom, toArray } from 'rxjs';
import { resumeFrom, retrieveResponseStream, streamResponse, type ResumeCursor } from '../../index';
import { startTestServer } from '../../testing/index';
import { fixture, payloads } from '../helpers/fixtures';

// The recorded background transcript: created(0) → queued(1) → in_progress(2) → … → completed.
test('a background stream cut right after response.queued resumes with starting_after=1 at response.in_progress', async () => {
  const sse = fixture('background-queued');
  const all = payloads(sse);
  expect(all.slice(0, 3).map((e) => e['type'])).toEqual(['response.created', 'response.queued', 'response.in_progress']);
  const server = await startTestServer({ transcripts: { bg: sse }, faults: [{ type: 'drop', afterEvents: 2 }] });
  try {
    const config = { baseURL: server.baseURL, apiKey: 'sk-test' };
    const cursors: ResumeCursor[] = [];
    const events = await lastValueFrom(
      streamResponse({ model: 'bg', input: 'hi', background: true }, config).pipe(
        resumeFrom((c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config), { delayMs: 0, onCursor: (c) => cursors.push(c) }),
        toArray(),
      ),
    );
    expect(events).toEqual(all);
    expect(server.requests.map((r) => [r.route, r.query['starting_after']])).toEqual([['responses.create', undefined], ['responses.stream', '1']]);
    expect(cursors.map((c) => c.sequenceNumber)).toEqual(all.map((e) => e['sequence_number']));
  } finally {
    await server.close();
  }
});
