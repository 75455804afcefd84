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
 *     resumeFrom((c) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config), { delay: 0 }),
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
export * from './http-server.js';
export * from './transcripts.js';
export * from './ws-server.js';
export * from './fake-provider.js';
export * from './scripted-provider.js';
