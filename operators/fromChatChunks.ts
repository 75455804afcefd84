import { Observable, type OperatorFunction } from 'rxjs';
import type { ChatCompletionChunk } from '../lib/events/chat.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { nonNegativeInt } from '../lib/options.js';
import { chunkError, elementOf, isRecord, own, type Rec } from './internal/chat-fields.js';
import { chunkUsage, citations, delta, logprobsOf, usageOf } from './internal/chat-dialects.js';
import { ChatOutput } from './internal/chat-output.js';
import { ToolCalls } from './internal/chat-tool-calls.js';

export interface FromChatChunksOptions {
  /** The choice to follow when the request asked for several (`n > 1`). Default `0`. */
  readonly choiceIndex?: number;
}

/**
 * Turns a Chat Completions chunk stream into a well-formed Responses event stream, so every Responses
 * operator works on chat-only providers: `response.created`, `response.in_progress`, reasoning /
 * message / `function_call` / `custom_tool_call` items with their added, delta and done events, then
 * `response.completed` (or `response.incomplete` for `length` / `content_filter`) with the usage, when
 * the chunks end. `sequence_number` counts from 0; item ids derive from the chunk id.
 *
 * Each provider dialect is read (see internal/chat-dialects.ts): the response id, model and creation time
 * come from the first chunk that has them (Azure opens with empty ones; `response.created` waits for an id
 * or the first item); `content` as a string or typed parts; reasoning as `reasoning_content`, `reasoning`,
 * `reasoning_details` or thinking parts; tool-call fragments merged by `index`, or by id and position
 * when they have none; logprobs onto the text deltas; `delta.audio` as `response.audio.*` and an
 * `output_audio` part; `citations` / `search_results` as `url_citation` annotations; usage from the chunk,
 * the choice or `x_groq`. A deprecated `delta.function_call` becomes a `function_call` item too.
 *
 * Chunks are read defensively (they may come from `validate: 'off'`): `null` counts as absent, metadata of
 * the wrong type is ignored, and a content field of the wrong type ends the stream with a `DecodeError`
 * naming the chunk's position and the field path.
 *
 * ```
 * --c1(role)--c2("Hi")--c3(stop)--u(usage)--|
 *   fromChatChunks()
 * --(ab)------(cdef)----(ghi)--------------(j|)
 *   a created, b in_progress, c item.added, d part.added, e text.delta, g text.done … j completed
 * ```
 *
 * ```ts
 * streamChatCompletion(body, config).pipe(fromChatChunks(), ofType('response.output_text.delta'))
 * ```
 */
export function fromChatChunks(options: FromChatChunksOptions = {}): OperatorFunction<ChatCompletionChunk, ResponseStreamEvent> {
  const choiceIndex = nonNegativeInt('choiceIndex', options.choiceIndex, 0);
  return (source) =>
    new Observable<ResponseStreamEvent>((subscriber) => {
      const out = new ChatOutput((e) => subscriber.next(e as ResponseStreamEvent));
      const calls = new ToolCalls(out);
      let n = 0;
      let failed = false;

      const onChoice = (choice: Rec, i: number): void => {
        const path = `choices[${i}]`;
        const logprobs = logprobsOf(choice, n, path);
        const d = own(choice, 'delta');
        if (d !== undefined && d !== null) {
          if (!isRecord(d)) throw chunkError(n, `${path}.delta`, 'not an object');
          delta(d, n, `${path}.delta`, out, calls, logprobs);
        } else if (logprobs.length > 0) {
          out.message.logprobs(logprobs);
        }
        const u = usageOf(own(choice, 'usage'), n, `${path}.usage`);
        if (u !== undefined) out.usage = u;
        const f = own(choice, 'finish_reason');
        if (f !== undefined && f !== null && typeof f !== 'string') throw chunkError(n, `${path}.finish_reason`, 'not a string');
        if (f) {
          out.finish = f;
          out.closeAll();
        }
      };
      const onChunk = (chunk: unknown): void => {
        if (!isRecord(chunk)) throw chunkError(n, '', 'the chunk is not an object');
        out.meta(chunk);
        if (out.id !== '') out.start();
        const u = chunkUsage(chunk, n);
        if (u !== undefined) out.usage = u;
        citations(chunk, n, out);
        // No `choices` at all: a chunk of usage and metadata alone (audio streams).
        const choices = own(chunk, 'choices');
        if (choices === undefined || choices === null) return;
        if (!Array.isArray(choices)) throw chunkError(n, 'choices', 'not an array');
        for (let i = 0; i < choices.length; i++) {
          const choice = elementOf(choices, i);
          if (!isRecord(choice)) throw chunkError(n, `choices[${i}]`, 'not an object');
          if (own(choice, 'index') === choiceIndex) onChoice(choice, i);
        }
      };

      return source.subscribe({
        next(chunk) {
          if (failed) return;
          try {
            onChunk(chunk);
            n++;
          } catch (err) {
            // A malformed chunk ends the stream with its DecodeError; what a chunk's getters (a Proxy) throw, with
            // that error: thrown from here it would escape as an uncaught exception.
            failed = true;
            subscriber.error(err);
          }
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => {
          if (failed) return;
          if (n > 0) out.end();
          subscriber.complete();
        },
      });
    });
}
