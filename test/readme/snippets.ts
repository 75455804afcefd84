// The README's code, type-checked by `npm run typecheck` (in CI): a snippet that no longer compiles fails the build.
// Never run: the free identifiers (render, prompts, …) stand for the reader's own code.
import { createServer } from 'node:http';
import { from, map } from 'rxjs';
import {
  accumulateResponse, connectResponsesSocket, isLaneError, laneMux, outputText, resumeFrom, resumeFromCursor,
  retrieveResponseStream, streamResponse, toChatChunks, toChatSSE, ofType, type ResumeCursor,
} from '../../lib/index.js';
import { startTestServer } from '../../lib/testing/index.js';

declare function render(x: unknown): void;
declare function report(x: unknown): void;
declare function route(id: string | undefined, e: unknown): void;
declare function saveCursor(c: ResumeCursor): void;
declare function loadCursor(): ResumeCursor;
declare const prompts: string[];
declare const longSSE: string;

streamResponse({ model: 'gpt-5.4-nano', input: 'Say hello' })
  .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
  .subscribe((text) => process.stdout.write(text));

createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (s) => (body += s)).on('end', () => {
    const chat = JSON.parse(body);
    const sub = streamResponse({ model: chat.model, input: chat.messages }, { apiKey: process.env.OPENAI_API_KEY })
      .pipe(toChatChunks({ includeUsage: chat.stream_options?.include_usage }), toChatSSE({ onError: 'event' }))
      .subscribe({ next: (text) => res.write(text), complete: () => res.end(), error: () => res.end() });
    res.on('close', () => sub.unsubscribe());
  });
}).listen(8080);

const socket = connectResponsesSocket({ apiKey: process.env.OPENAI_API_KEY });
socket.response({ model: 'gpt-5.4-nano', input: 'Hi' }).pipe(outputText()).subscribe(render);
from(prompts.map((input, i) => ({ type: 'response.create' as const, stream_id: `lane-${i % 4}`, model: 'gpt-5.4-nano', input })))
  .pipe(laneMux(socket))
  .subscribe((e) => (isLaneError(e) ? report(e) : route(e.stream_id, e)));
socket.close();

const config = { apiKey: process.env.OPENAI_API_KEY };
const reconnect = (c: ResumeCursor) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config);
streamResponse({ model: 'gpt-5.4', input: 'Write the report.', background: true }, config)
  .pipe(resumeFrom(reconnect, { onCursor: (c) => saveCursor(c) }), outputText())
  .subscribe((text) => render(text));
resumeFromCursor(loadCursor(), reconnect).pipe(outputText()).subscribe(render);
retrieveResponseStream('resp_1', {}, config).pipe(resumeFrom(reconnect), accumulateResponse()).subscribe(render);

async function t() {
  const server = await startTestServer({ transcripts: { long: longSSE }, faults: [{ type: 'drop', afterEvents: 40 }, { type: 'status', status: 503 }] });
  const cfg = { baseURL: server.baseURL, apiKey: 'test' };
  void cfg; void server.requests;
  await server.close();
}
void t;
