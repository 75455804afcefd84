// The ```ts examples in the transports' doc comments, verbatim, so that `npm run typecheck` compiles them:
// test/docs/doc-examples.spec.ts fails when a doc comment's example is not here word for word.
// Never run: the free identifiers (url, init, saved, render, …) stand for the reader's own code.
import { filter, finalize, lastValueFrom, map, type Observable } from 'rxjs';
import * as t from 'io-ts';
import {
  connectResponsesSocket, decodeChatCompletionsSSE, decodeResponsesSSE, fromChatCompletionsSSE, fromResponsesSSE, jsonSchemaFormat, laneMux, ofType,
  outputText, resumeFrom, retrieveResponseStream, streamChatCompletion, streamResponse, streamResponseOverSocket,
  type ResponsesClientEvent, type ResumeCursor,
} from '../../index.js';
import { startTestServer, textTranscript } from '../../testing/index.js';

declare const url: string;
declare const init: RequestInit;
declare const saved: ResumeCursor;
declare const captured: string;
declare const body$: Observable<Uint8Array>;
declare const requests$: Observable<ResponsesClientEvent>;
declare function render(text: string): void;

// lib/http/transports.ts
{
streamResponse({ model: 'gpt-5.4-nano', input: 'Say hello' }, { idleTimeoutMs: 30_000 })
  .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
  .subscribe((text) => process.stdout.write(text));
}

// lib/http/transports.ts
{
// A background response picked up where a saved cursor left it (see resumeFrom for reconnecting too).
retrieveResponseStream(saved.responseId, { startingAfter: saved.sequenceNumber })
  .pipe(outputText())
  .subscribe((text) => render(text));
}

// lib/http/transports.ts
{
streamChatCompletion({ model: 'gpt-5.4-nano', messages: [{ role: 'user', content: 'Say hello' }] })
  .pipe(map((chunk) => chunk.choices[0]?.delta?.content), filter((text) => typeof text === 'string'))
  .subscribe((text) => process.stdout.write(text));
}

// lib/decode/responses-sse.ts
{
fromResponsesSSE(await fetch(url, init))
  .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
  .subscribe((text) => process.stdout.write(text));

// A captured stream (`curl -N …`, a test fixture) as a string:
fromResponsesSSE(captured).pipe(outputText()).subscribe((text) => render(text));
}

// lib/decode/responses-sse.ts
{
// body$: the body's chunks as an Observable (relayed from another process, a Node stream…)
body$.pipe(decodeResponsesSSE(), ofType('response.completed')).subscribe((e) => console.log(e.response.usage));
}

// lib/decode/chat-sse.ts
{
fromChatCompletionsSSE(await fetch(url, init), { requireDone: false })   // a provider that omits [DONE]
  .subscribe((chunk) => console.log(chunk.choices[0]?.delta?.content));
}

// lib/decode/chat-sse.ts
{
body$.pipe(decodeChatCompletionsSSE()).subscribe((chunk) => console.log(chunk.choices[0]?.finish_reason));
}

// lib/schema/json-schema-format.ts
{
const Weather = t.type({ city: t.string, temperature: t.number, conditions: t.keyof({ sunny: null, cloudy: null, rain: null }) });

streamResponse({ model: 'gpt-5.4-mini', input: 'The weather in Paris', text: { format: jsonSchemaFormat(Weather, { name: 'weather' }) } })
  .pipe(outputText())
  .subscribe((json) => render(json));
}

// lib/ws/socket.ts
{
const socket = connectResponsesSocket();   // OPENAI_API_KEY; wss://api.openai.com/v1/responses
socket.response({ model: 'gpt-5.4-nano', input: 'Hi' })
  .pipe(ofType('response.output_text.delta'), map((e) => e.delta), finalize(() => socket.close()))
  .subscribe((text) => process.stdout.write(text));

// Many requests at once, one lane per `stream_id` (see laneMux):
requests$.pipe(laneMux(socket)).subscribe((e) => console.log(e.stream_id, e.type));
}

// lib/ws/response.ts
{
const socket = connectResponsesSocket();
streamResponseOverSocket(socket, { model: 'gpt-5.4-nano', input: 'Hi' })
  .pipe(ofType('response.output_text.delta'), map((e) => e.delta))
  .subscribe();
}

// testing/index.ts
{
const server = await startTestServer({
  transcripts: { hello: textTranscript({ deltas: ['Hel', 'lo', '!'] }) },   // chosen by `model`
  faults: [{ type: 'drop', afterEvents: 5 }],   // the first request is cut off mid-answer
});
const config = { baseURL: server.baseURL, apiKey: 'test' };
const text = await lastValueFrom(
  streamResponse({ model: 'hello', input: 'Hi' }, config).pipe(
    resumeFrom((c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config), { delayMs: 0 }),
    outputText(),
  ),
);
// text === 'Hello!'; server.requests: the dropped POST, then the resuming GET
await server.close();
}
