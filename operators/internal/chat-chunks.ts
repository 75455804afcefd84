// One fromChatChunks subscription: the source's subscriber, its general path and its fast path (not exported).
import type { Subscriber } from 'rxjs';
import type { ChatCompletionChunk } from '../../lib/events/chat.js';
import type { ResponseStreamEvent } from '../../lib/events/responses.js';
import { chunkError, elementOf, isRecord, own, type Rec } from './chat-fields.js';
import { chunkUsage, citations, delta, logprobsOf, usageOf } from './chat-dialects.js';
import { ChatOutput } from './chat-output.js';
import { ToolCalls } from './chat-tool-calls.js';
import { OperatorSubscriber } from './operator-subscriber.js';
import { TextAccumulation } from './text-accumulation.js';

/** What JSON.parse makes objects inherit from: the fast path reads its fields plainly only while it lends none of them. */
const OBJECT: object = Object.prototype;

/**
 * A class, not closures made per subscription, so that the optimised code of the per-chunk path lives as long as
 * the module and survives a full GC between streams (see TextAccumulation); a Subscriber rather than an observer
 * object, which `subscribe()` would wrap in two more layers that every chunk crosses. Fields are set in the
 * constructor, in one order.
 */
export class ChatChunks extends OperatorSubscriber<ChatCompletionChunk, Subscriber<ResponseStreamEvent>> {
  private readonly out: ChatOutput;
  private readonly calls: ToolCalls;
  /** The subscriber when it is an accumulateText (`fromChatChunks(), accumulateText()`): text deltas go to it directly. */
  private readonly acc: TextAccumulation | undefined;
  /** Chunks read so far: the position a DecodeError names. */
  private n: number;

  constructor(
    subscriber: Subscriber<ResponseStreamEvent>,
    private readonly choiceIndex: number,
  ) {
    super(subscriber);
    this.out = new ChatOutput(subscriber);
    this.calls = new ToolCalls(this.out);
    this.acc = subscriber instanceof TextAccumulation ? subscriber : undefined;
    this.n = 0;
  }

  protected override _next(chunk: ChatCompletionChunk): void {
    try {
      if (!this.fast(chunk)) this.chunk(chunk);
      this.n++;
    } catch (err) {
      // A malformed chunk ends the stream with its DecodeError; what a chunk's getters (a Proxy) throw, with that
      // error: thrown from here it would reach the producer, or escape as an uncaught exception.
      this.error(err);
    }
  }

  protected override beforeComplete(): void {
    if (this.n > 0) this.out.end();
  }

  /**
   * The commonest chunk, read in one pass with no field path built and no list made: the followed choice alone,
   * its delta at most a `content` string (beside `role` and fields that are null), no logprobs, usage, finish,
   * citations, reasoning, refusal, audio, annotations or calls. It does what the general path does with such a
   * chunk (metadata, `response.created`, the text delta) and returns true; for any other chunk it returns false
   * having changed nothing but metadata still unknown, which the general path then fills the same way from the
   * same chunk, reading it from the start (so it checks and rejects exactly as before).
   *
   * Its reads are own reads without `Object.hasOwn` (a call per field, where a plain read or `in` is an inline
   * cache): a field is read plainly only from an object whose prototype is Object.prototype and when
   * Object.prototype does not have that field (a polluted one sends the chunk to the general path); a field
   * expected absent is checked with `in`, which sees inherited ones too.
   */
  private fast(chunk: unknown): boolean {
    if (!isRecord(chunk) || Object.getPrototypeOf(chunk) !== OBJECT) return false;
    const out = this.out;
    if (!out.metaKnown()) out.meta(chunk);
    if ('x_groq' in chunk || 'citations' in chunk || 'search_results' in chunk) return false;
    if ('usage' in OBJECT || 'choices' in OBJECT || 'index' in OBJECT || 'logprobs' in OBJECT || 'finish_reason' in OBJECT) return false;
    if ('delta' in OBJECT || 'content' in OBJECT || 'refusal' in OBJECT || 'reasoning_content' in OBJECT || 'reasoning' in OBJECT) return false;
    const usage = chunk['usage'];
    if (usage !== undefined && usage !== null) return false;
    const choices = chunk['choices'];
    if (!Array.isArray(choices) || choices.length !== 1) return false;
    const choice = elementOf(choices, 0);
    if (!isRecord(choice) || Object.getPrototypeOf(choice) !== OBJECT || choice['index'] !== this.choiceIndex) return false;
    const logprobs = choice['logprobs'];
    if (logprobs !== undefined && logprobs !== null) return false;
    const u = choice['usage'];
    if (u !== undefined && u !== null) return false;
    const finish = choice['finish_reason'];
    if (finish !== undefined && finish !== null && finish !== '') return false;
    const d = choice['delta'];
    if (!isRecord(d) || Object.getPrototypeOf(d) !== OBJECT) return false;
    if ('reasoning_details' in d || 'audio' in d || 'annotations' in d || 'function_call' in d || 'tool_calls' in d) return false;
    const rc = d['reasoning_content'];
    const r = d['reasoning'];
    const refusal = d['refusal'];
    if ((rc !== undefined && rc !== null && rc !== '') || (r !== undefined && r !== null && r !== '') || (refusal !== undefined && refusal !== null && refusal !== '')) return false;
    const content = d['content'];
    if (content !== undefined && content !== null && typeof content !== 'string') return false;
    if (out.id !== '') out.start();
    if (content) {
      const acc = this.acc;
      if (acc === undefined || !out.message.directText(content, acc)) out.message.text(content, []);
    }
    return true;
  }

  /** Any chunk, every field and dialect read and checked (see chat-dialects). */
  private chunk(chunk: unknown): void {
    const n = this.n;
    const out = this.out;
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
      if (own(choice, 'index') === this.choiceIndex) this.choice(choice, i);
    }
  }

  private choice(choice: Rec, i: number): void {
    const n = this.n;
    const out = this.out;
    const path = `choices[${i}]`;
    const logprobs = logprobsOf(choice, n, path);
    const d = own(choice, 'delta');
    if (d !== undefined && d !== null) {
      if (!isRecord(d)) throw chunkError(n, `${path}.delta`, 'not an object');
      delta(d, n, `${path}.delta`, out, this.calls, logprobs);
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
  }
}
