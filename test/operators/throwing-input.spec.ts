// Values whose fields throw when read (a getter, a Proxy) end the stream of every operator that reads them with
// that error: never thrown back at the producer, never an uncaught exception (rxjs reports those through
// config.onUnhandledError, watched here).
import { config, Subject, type Observable, type OperatorFunction } from 'rxjs';
import * as t from 'io-ts';
import { accumulateResponse, accumulateText, fromChatChunks, outputObject, outputText, partialJson, partialToolCalls, smoothText, toChatChunks } from '../../operators/index';
import * as ev from './events';

const boom = new Error('a getter threw');
const thrower = () => {
  throw boom;
};
const proxy = () => new Proxy({}, { get: thrower, has: thrower, getOwnPropertyDescriptor: thrower, ownKeys: thrower });
const getter = (o: object, key: string) => Object.defineProperty({ ...o }, key, { get: thrower, enumerable: true });

const responses = {
  'a Proxy that throws on every read': proxy,
  'a throwing `type` getter': () => getter({}, 'type'),
  'a text delta whose `delta` getter throws': () => getter(ev.textDelta('m', 0, 0, 'x'), 'delta'),
  'a terminal event whose `response` getter throws': () => getter(ev.completed(), 'response'),
};
const chatChunk = (delta: object) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] });
const chats = {
  'a Proxy that throws on every read': proxy,
  'a chunk whose `choices` getter throws': () => getter(chatChunk({}), 'choices'),
  'a delta whose `content` getter throws': () => chatChunk(getter({}, 'content')),
  'a tool call fragment whose `function` getter throws': () => chatChunk({ tool_calls: [getter({ index: 0, id: 'call' }, 'function')] }),
};

// Each operator is fed a first good value (so that state exists), then the hostile one.
const text = ev.textDelta('m', 0, 0, 'Hi');
const operators: Array<[string, () => OperatorFunction<never, unknown>, unknown, Record<string, (() => object) | undefined>]> = [
  ['outputText', () => outputText() as OperatorFunction<never, unknown>, text, responses],
  ['accumulateText', () => accumulateText() as OperatorFunction<never, unknown>, text, responses],
  ['accumulateResponse', () => accumulateResponse() as OperatorFunction<never, unknown>, text, responses],
  ['toChatChunks', () => toChatChunks() as OperatorFunction<never, unknown>, text, responses],
  // smoothText reads a text delta's fields, not the terminal event's `response` (it passes that event on).
  ['smoothText', () => smoothText({ delayMs: 0 }) as OperatorFunction<never, unknown>, text, { ...responses, 'a terminal event whose `response` getter throws': undefined }],
  // partialJson reads a snapshot's length and characters.
  ['partialJson', () => partialJson() as OperatorFunction<never, unknown>, '[', { 'a snapshot whose `length` getter throws': () => getter(new String('[1'), 'length'), 'a Proxy that throws on every read': proxy }],
  ['outputObject', () => outputObject(t.unknown) as OperatorFunction<never, unknown>, ev.itemAdded(0, ev.msg('m')), {
    ...responses,
    'a text delta whose `delta` getter throws': () => getter(ev.textDelta('m', 0, 0, '{'), 'delta'),
  }],
  ['partialToolCalls', () => partialToolCalls() as OperatorFunction<never, unknown>, ev.itemAdded(0, ev.fc('fc_1', 'call_1', 'f')), {
    'a Proxy that throws on every read': proxy,
    'a throwing `type` getter': () => getter({}, 'type'),
    'an arguments delta whose `delta` getter throws': () => getter(ev.argsDelta('fc_1', 0, '{'), 'delta'),
  }],
  ['fromChatChunks', () => fromChatChunks() as OperatorFunction<never, unknown>, chatChunk({ content: 'Hi' }), chats],
];

let unhandled: unknown[] = [];
const saved = config.onUnhandledError;
beforeEach(() => {
  unhandled = [];
  config.onUnhandledError = (err: unknown) => unhandled.push(err);
});
afterEach(() => {
  config.onUnhandledError = saved;
});

const cases = operators.flatMap(([op, make, good, hostile]) =>
  Object.entries(hostile).flatMap(([what, bad]) => (bad === undefined ? [] : [[op, what, make, good, bad] as const])));

test.each(cases)('%s, given %s: the stream errors with it', (_, __, make, good, bad) => {
  const source = new Subject<never>();
  let error: unknown;
  let completed = false;
  (source as Observable<never>).pipe(make()).subscribe({ error: (e: unknown) => (error = e), complete: () => (completed = true) });
  source.next(good as never);
  expect(() => source.next(bad() as never)).not.toThrow();
  // Anything after it is not read.
  expect(() => source.next(good as never)).not.toThrow();
  source.complete();
  expect(error).toBe(boom);
  expect(completed).toBe(false);
  expect(unhandled).toEqual([]);
});
