/**
 * Loopback servers that speak the OpenAI streaming protocols, for this project's tests and for users' own.
 * Node only (`node:http`): the main entry point never imports this module.
 *
 * ```ts
 * const server = await startTestServer({
 *   transcripts: { hello: textTranscript({ deltas: ['Hel', 'lo', '!'] }) },   // chosen by `model`
 *   faults: [{ type: 'drop', afterEvents: 5 }],   // the first request is cut off mid-answer
 * });
 * const config = { baseURL: server.baseURL, apiKey: 'test' };
 * const text = await lastValueFrom(
 *   streamResponse({ model: 'hello', input: 'Hi' }, config).pipe(
 *     resumeFrom((c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config), { delayMs: 0 }),
 *     outputText(),
 *   ),
 * );
 * // text === 'Hello!'; server.requests: the dropped POST, then the resuming GET
 * await server.close();
 * ```
 *
 * @packageDocumentation
 * @module openai-rx/testing
 */
// Every name is listed (test/package/exports.spec.ts pins the lists); the servers' helpers stay inside.
export {
  startTestServer,
  type TestServer, type TestServerOptions, type Fault, type RecordedRequest, type RecordedConnection, type CloseOutcome, type TestRoute,
} from './http-server.js';
export {
  textTranscript, responsesTranscript, chatTranscript, parseTranscript,
  type TextTranscriptOptions, type TranscriptEventInput, type TranscriptEvent, type ParsedTranscript,
} from './transcripts.js';
export {
  startResponsesWebSocketServer,
  type ResponsesWebSocketServer, type ResponsesWebSocketServerOptions, type ResponsePlan, type WebSocketResponseFault,
  type WebSocketResponseRecord, type WebSocketServerCounters, type WebSocketServerFaults,
} from './ws-server.js';
export { startFakeProvider, FAKE_ANSWER, type FakeProvider, type FakeProviderOptions, type FakeResponse } from './fake-provider.js';
export {
  startScriptedProvider,
  type ScriptedProvider, type ScriptedProviderOptions, type ScriptedCall, type ScriptedReply, type ScriptedRequest,
} from './scripted-provider.js';
