import { ResponseStreamError, StreamInterruptedError } from '../lib/errors';
import { decodeChatCompletionsSSE } from '../lib/decode/chat-sse';
import { marbleScheduler } from '../test/helpers/marbles';

const data = (o: unknown) => `data: ${typeof o === 'string' ? o : JSON.stringify(o)}\n\n`;
const chunk = (content: string | null, finish: string | null = null) => ({
  id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm',
  choices: [{ index: 0, delta: content === null ? {} : { content }, logprobs: null, finish_reason: finish }],
});
const usage = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } };

const scheduler = () => marbleScheduler();

describe('decodeChatCompletionsSSE', () => {
  test('emits chunks and completes at data: [DONE], not at the end of the body', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('-a-b-c-d---|', { a: data(chunk('Hi')), b: data(chunk(null, 'stop')), c: data(usage), d: data('[DONE]') });
      expectObservable(src.pipe(decodeChatCompletionsSSE())).toBe('-a-b-c-|', { a: chunk('Hi'), b: chunk(null, 'stop'), c: usage });
      expectSubscriptions(src.subscriptions).toBe('^------!');
    });
  });

  test('a body without [DONE] errors with StreamInterruptedError, or completes with requireDone: false', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const values = { a: data(chunk('Hi')) };
      expectObservable(cold('-a-|', values).pipe(decodeChatCompletionsSSE())).toBe(
        '-a-#',
        { a: chunk('Hi') },
        new StreamInterruptedError('chatcmpl-1', 0, 'the stream ended without data: [DONE]'),
      );
      expectObservable(cold('-a-|', values).pipe(decodeChatCompletionsSSE({ requireDone: false }))).toBe('-a-|', { a: chunk('Hi') });
    });
  });

  test('an error payload ends the stream with ResponseStreamError', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = { error: { code: 'server_error', message: 'overloaded', param: null } };
      const src = cold('-a-b-|', { a: data(chunk('Hi')), b: data(err) });
      expectObservable(src.pipe(decodeChatCompletionsSSE())).toBe(
        '-a-#',
        { a: chunk('Hi') },
        new ResponseStreamError('error', 'server_error', 'overloaded', null, undefined, 'chatcmpl-1', err),
      );
    });
  });

  test('a chunk without delta is accepted', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const noDelta = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, finish_reason: 'stop' }] };
      const src = cold('-a-b|', { a: data(noDelta), b: data('[DONE]') });
      expectObservable(src.pipe(decodeChatCompletionsSSE())).toBe('-a-|', { a: noDelta });
    });
  });
});
