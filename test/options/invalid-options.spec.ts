// Every public function that takes options refuses one that cannot work the same way: an InvalidOptionError whose
// `option` names it (a path when nested) and whose message says so; thrown at the call, or as the error of the
// Observable or Promise it returns. One row per function (and per kind of check), so a new option or function
// that throws something else shows up here.
import { isObservable, lastValueFrom, of, type Observable } from 'rxjs';
import * as t from 'io-ts';
import {
  accumulateText, bufferLimit, cancelResponse, configure, connectResponsesSocket, decodeChatCompletionsSSE, decodeResponsesSSE, defineTool, exponentialBackoff,
  fromChatChunks, fromChatCompletionsSSE, fromEventLog, fromResponsesSSE, InvalidOptionError, jsonSchemaFormat, laneMux, memoryEventLog, outputObject, partialJson, persistTo,
  redisEventLog, resumeFrom, retrieveResponseStream, runAgent, smoothText, streamChatCompletion, streamResponse, toChatSSE,
  toResponsesSSE, type LaneSocket,
} from '../../index';
import { createGateway } from '../../gateway/index';
import { startFakeProvider, startResponsesWebSocketServer, startScriptedProvider, startTestServer } from '../../testing/index';

const KEY = 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
/** No request may be made with an invalid option: a fetch that fails the test if it is called. */
const noFetch = (() => Promise.reject(new Error('a request was made'))) as typeof fetch;
const config = { baseURL: 'http://127.0.0.1:9/v1', apiKey: KEY, fetch: noFetch };
const tool = (extra: Record<string, unknown>) => ({ parameters: t.type({}), execute: () => 'ok', ...extra }) as unknown as Parameters<typeof defineTool>[0];
const noSocket = {} as LaneSocket;
const bad = <T>(v: unknown): T => v as T;

type Row = readonly [string, () => unknown, string];
const rows: readonly Row[] = [
  // transports: through the Observable, before a request
  ['streamResponse validate', () => streamResponse({ model: 'm' }, { ...config, validate: bad('loose') }), 'validate'],
  ['streamResponse sequence', () => streamResponse({ model: 'm' }, { ...config, sequence: bad('exact') }), 'sequence'],
  ['streamResponse idleTimeoutMs', () => streamResponse({ model: 'm' }, { ...config, idleTimeoutMs: -1 }), 'idleTimeoutMs'],
  ['streamResponse baseURL', () => streamResponse({ model: 'm' }, { ...config, baseURL: 'ftp://x/v1' }), 'baseURL'],
  ['streamResponse fetch', () => streamResponse({ model: 'm' }, { ...config, fetch: bad('fetch') }), 'fetch'],
  ['streamResponse drainAfterEnd.ms', () => streamResponse({ model: 'm' }, { ...config, drainAfterEnd: { ms: NaN } }), 'drainAfterEnd.ms'],
  ['retrieveResponseStream responseId', () => retrieveResponseStream('../admin', {}, config), 'responseId'],
  ['retrieveResponseStream startingAfter', () => retrieveResponseStream('resp_1', { startingAfter: -1 }, config), 'startingAfter'],
  ['retrieveResponseStream maxEventSize', () => retrieveResponseStream('resp_1', {}, { ...config, maxEventSize: 0 }), 'maxEventSize'],
  ['streamChatCompletion validate', () => streamChatCompletion({ model: 'm', messages: [] }, { ...config, validate: bad('yes') }), 'validate'],
  ['cancelResponse responseId', () => cancelResponse('../x', config), 'responseId'],
  // decoders: at the call
  ['fromResponsesSSE validate', () => fromResponsesSSE('', { validate: bad('Strict') }), 'validate'],
  ['fromResponsesSSE errorEvents', () => fromResponsesSSE('', { errorEvents: bad('values') }), 'errorEvents'],
  ['fromResponsesSSE startingAfter', () => fromResponsesSSE('', { startingAfter: 1.5 }), 'startingAfter'],
  ['decodeResponsesSSE maxLineLength', () => decodeResponsesSSE({ maxLineLength: -5 }), 'maxLineLength'],
  ['fromChatCompletionsSSE validate', () => fromChatCompletionsSSE('', { validate: bad(true) }), 'validate'],
  ['decodeChatCompletionsSSE maxEventSize', () => decodeChatCompletionsSSE({ maxEventSize: bad('1mb') }), 'maxEventSize'],
  // the event log
  ['memoryEventLog maxEvents', () => memoryEventLog({ maxEvents: -1 }), 'maxEvents'],
  ['memoryEventLog ttlMs', () => memoryEventLog({ ttlMs: 0 }), 'ttlMs'],
  ['redisEventLog keyPrefix', () => redisEventLog({ url: 'redis://127.0.0.1:9', keyPrefix: '{app}:' }), 'keyPrefix'],
  ['redisEventLog replicas', () => redisEventLog({ url: 'redis://127.0.0.1:9', replicas: -1 }), 'replicas'],
  ['redisEventLog commandTimeoutMs', () => redisEventLog({ url: 'redis://127.0.0.1:9', commandTimeoutMs: bad('5s') }), 'commandTimeoutMs'],
  ['fromEventLog startingAfter', () => fromEventLog(memoryEventLog(), 'resp_1', { startingAfter: NaN }), 'startingAfter'],
  ['fromEventLog pollMs', () => fromEventLog(memoryEventLog(), 'resp_1', { pollMs: 0 }), 'pollMs'],
  ['fromEventLog notFoundTimeoutMs', () => fromEventLog(memoryEventLog(), 'resp_1', { notFoundTimeoutMs: -1 }), 'notFoundTimeoutMs'],
  ['fromEventLog upstream.baseURL', () => fromEventLog(memoryEventLog(), 'resp_1', { upstream: { baseURL: 'not a url' } }), 'upstream.baseURL'],
  ['persistTo maxPending', () => persistTo(memoryEventLog(), { maxPending: -1 }), 'maxPending'],
  ['persistTo onWriteError', () => persistTo(memoryEventLog(), { onWriteError: bad('ignore') }), 'onWriteError'],
  ['persistTo leaseMs', () => persistTo(memoryEventLog(), { leaseMs: 0 }), 'leaseMs'],
  // operators
  ['smoothText delayMs', () => smoothText({ delayMs: -1 }), 'delayMs'],
  ['smoothText chunking', () => smoothText({ chunking: bad('sentence') }), 'chunking'],
  ['partialJson maxDepth', () => partialJson({ maxDepth: 0 }), 'maxDepth'],
  ['outputObject outputIndex', () => outputObject(t.type({}), { outputIndex: -1 }), 'outputIndex'],
  ['bufferLimit max', () => bufferLimit(-1, () => of(1)), 'max'],
  ['bufferLimit work', () => bufferLimit<unknown, unknown>(1, bad(undefined)), 'work'],
  ['laneMux maxInFlight', () => laneMux(noSocket, { maxInFlight: 0 }), 'maxInFlight'],
  ['laneMux terminalTimeoutMs', () => laneMux(noSocket, { terminalTimeoutMs: -1 }), 'terminalTimeoutMs'],
  ['resumeFrom maxAttempts', () => resumeFrom(() => of(), { maxAttempts: -1 }), 'maxAttempts'],
  ['resumeFrom delayMs', () => resumeFrom(() => of(), { delayMs: -100 }), 'delayMs'],
  ['exponentialBackoff jitter', () => exponentialBackoff({ jitter: 2 }), 'jitter'],
  ['toResponsesSSE onError', () => toResponsesSSE({ onError: bad('value') }), 'onError'],
  ['toChatSSE onError', () => toChatSSE({ onError: bad('value') }), 'onError'],
  ['fromChatChunks choiceIndex', () => fromChatChunks({ choiceIndex: -1 }), 'choiceIndex'],
  ['accumulateText kind', () => accumulateText({ kind: bad('text') }), 'kind'],
  ['configure warmUp', () => configure({ warmUp: bad('off') }), 'warmUp'],
  // the agent
  ['runAgent maxTurns', () => runAgent({ model: 'm' }, { maxTurns: 0, config }), 'maxTurns'],
  ['runAgent toolTimeoutMs', () => runAgent({ model: 'm' }, { toolTimeoutMs: -1, config }), 'toolTimeoutMs'],
  ['runAgent tools', () => runAgent({ model: 'm' }, { tools: { 'bad name': defineTool(tool({})) }, config }), 'tools'],
  ['runAgent resume', () => runAgent({ model: 'm' }, { resume: true, transport: () => of() }), 'resume'],
  ['defineTool parameters', () => defineTool(tool({ parameters: t.string })), 'parameters'],
  ['defineTool execute', () => defineTool(tool({ execute: 'run' })), 'execute'],
  ['defineTool checkArguments', () => defineTool(tool({ parameters: { type: 'object' }, checkArguments: 'ajv' })), 'checkArguments'],
  ['defineTool timeoutMs', () => defineTool(tool({ timeoutMs: 0 })), 'timeoutMs'],
  // structured outputs
  ['jsonSchemaFormat name', () => jsonSchemaFormat(t.type({}), { name: 'my format' }), 'name'],
  ['jsonSchemaFormat codec', () => jsonSchemaFormat(t.type({ tags: t.record(t.string, t.string) }), { name: 'tags' }), 'codec'],
  ['jsonSchemaFormat strict', () => jsonSchemaFormat(t.type({}), { name: 'x', strict: bad('yes') }), 'strict'],
  // the gateway
  ['createGateway log', () => createGateway({ log: 'postgres://db' }), 'log'],
  ['createGateway upstream.baseURL', () => createGateway({ upstream: { baseURL: `https://user:${KEY}@example.com/v1` } }), 'upstream.baseURL'],
  ['createGateway limits.maxBodyBytes', () => createGateway({ limits: { maxBodyBytes: -1 } }), 'limits.maxBodyBytes'],
  ['createGateway timeouts.upstreamMs', () => createGateway({ timeouts: { upstreamMs: bad('10s') } }), 'timeouts.upstreamMs'],
  ['createGateway accessLog', () => createGateway({ accessLog: bad('stderr') }), 'accessLog'],
  ['createGateway passThrough', () => createGateway({ passThrough: bad('GET /v1/files') }), 'passThrough'],
  // test servers: the returned Promise rejects
  ['startTestServer port', () => startTestServer({ transcripts: {}, port: 70000 }), 'port'],
  ['startTestServer transcripts', () => startTestServer(bad({})), 'transcripts'],
  ['startResponsesWebSocketServer maxLanes', () => startResponsesWebSocketServer({ maxLanes: 0 }), 'maxLanes'],
  ['startFakeProvider eventDelayMs', () => startFakeProvider({ eventDelayMs: -1 }), 'eventDelayMs'],
  ['startScriptedProvider chunkDelayMs', () => startScriptedProvider({ chunkDelayMs: -1 }), 'chunkDelayMs'],
  // WebSocket
  ['connectResponsesSocket url', () => connectResponsesSocket({ url: 'http://127.0.0.1:9/v1/responses' }), 'url'],
  ['connectResponsesSocket validate', () => connectResponsesSocket({ url: 'ws://127.0.0.1:9', validate: bad('none') }), 'validate'],
  ['connectResponsesSocket maxSendBuffer', () => connectResponsesSocket({ url: 'ws://127.0.0.1:9', maxSendBuffer: -1 }), 'maxSendBuffer'],
];

/** Whatever the call ends with: what it throws, or the error of the Observable or Promise it returns. */
async function refusal(call: () => unknown): Promise<unknown> {
  let result: unknown;
  try {
    result = call();
  } catch (e) {
    return e;
  }
  try {
    if (isObservable(result)) await lastValueFrom(result as Observable<unknown>, { defaultValue: undefined });
    else if (result instanceof Promise) await release(await result);
    else await release(result);
  } catch (e) {
    return e;
  }
  return undefined;
}

/** A server, log or gateway the call made although it should have refused: closed so the test ends. */
async function release(made: unknown): Promise<void> {
  const close = (made as { close?: () => unknown } | undefined)?.close;
  if (typeof close === 'function') await close.call(made);
}

describe('an invalid option is an InvalidOptionError naming it', () => {
  test.each(rows)('%s', async (_name, call, option) => {
    const e = await refusal(call);
    expect(e).toBeInstanceOf(InvalidOptionError);
    expect(e).toMatchObject({ name: 'InvalidOptionError', code: 'invalid_option', option, retryable: false });
    const message = (e as Error).message;
    expect(message.startsWith(`${option}: `)).toBe(true);
    expect(message.length).toBeGreaterThan(option.length + 2);
    expect(message).not.toContain(KEY);
    expect(JSON.stringify(e)).not.toContain(KEY);
  });
});

test('a refused string value is shown as a short masked excerpt, never a key; a URL-like one by its length only', async () => {
  const e = await refusal(() => fromResponsesSSE('', { validate: bad(KEY) }));
  expect(e).toMatchObject({ option: 'validate' });
  expect((e as Error).message).not.toContain(KEY);
  expect((e as Error).message).not.toContain(KEY.slice(8, 30));
  const url = await refusal(() => createGateway(bad({ upstream: `https://user:${KEY}@example.com/v1` })));
  expect(url).toMatchObject({ option: 'upstream', message: 'upstream: expected { baseURL, apiKey?, fetch? }, got a string of 72 characters' });
});
