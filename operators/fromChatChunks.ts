import { from, Observable, type OperatorFunction, type Subscription } from 'rxjs';
import type { ChatCompletionChunk } from '../lib/events/chat.js';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { nonNegativeInt } from '../lib/options.js';
import { keepWarm } from '../lib/warmup.js';
import { ChatChunks } from './internal/chat-chunks.js';

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
      keepWarm('fromChatChunks', chatChunkShapes);
      return source.subscribe(new ChatChunks(subscriber, choiceIndex));
    });
}

/**
 * Kept once the first conversion starts, unless warm-ups are off (lib/warmup.ts), so that the hidden classes (maps)
 * of a conversion survive a full GC while no stream is open, and so does the optimised code that checks for them:
 * one conversion kept open (on a source that sent a role chunk and a content chunk and never ends: its subscribers,
 * its output, the open message and its text part), and one event of each type from a whole conversion (the
 * events' maps: most are a literal's map and one more field, `sequence_number`, which V8 holds only while an
 * object has it). Nothing of a user's stream is kept: the chunks are content-free.
 */
const chatChunkShapes = (): Subscription => {
  // `created` a fraction: the output then holds its time as a double from the start, which holds any time a stream
  // sends (a field that changes how it holds a number changes the object's map, and a time beyond the small
  // integers, or one from a kept chunk shape, is a double).
  const chunk = (delta: object, finish: string | null = null): ChatCompletionChunk =>
    ({ id: '', object: 'chat.completion.chunk', created: 0.5, model: '', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null }) as unknown as ChatCompletionChunk;
  const events = new Map<string, ResponseStreamEvent>();
  const keep = { next: (e: ResponseStreamEvent) => void events.set(e.type, e), error: () => undefined, complete: () => undefined };
  const whole = [chunk({ role: 'assistant', content: '' }), chunk({ content: ' ' }), chunk({}, 'stop')];
  from(whole).pipe(fromChatChunks()).subscribe(keep);
  const open = new Observable<ChatCompletionChunk>((s) => {
    s.next(whole[0]!);
    s.next(whole[1]!);
  })
    .pipe(fromChatChunks())
    .subscribe(keep);
  return open;
}
