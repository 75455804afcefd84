import type * as t from 'io-ts';
import { Observable, type OperatorFunction } from 'rxjs';
import type { ResponseStreamEvent } from '../lib/events/responses.js';
import { IncompleteResponseError, RefusalError, ResponseCancelledError, ResponseStreamError, StreamInterruptedError } from '../lib/errors.js';
import { isCancelledEvent, responseIdOf } from '../lib/events/guards.js';
import { createPartialJsonParser, type PartialJsonParser } from '../lib/json/partial-json.js';
import { nonNegativeInt } from '../lib/options.js';
import { argumentsFor } from '../lib/schema/json-schema.js';
import { codecError } from './internal/codec-errors.js';
import { asRecord, field, isIndex, partText } from './internal/parts.js';
import type { PartialValue } from './partialJson.js';

export interface OutputObjectOptions {
  /** The output item whose text is the JSON, by its `output_index`. Default: the first `message` item. */
  readonly outputIndex?: number;
}

/** The text of an item's `output_text` parts, in order, and its refusal if it has one. */
function itemTexts(item: unknown): { text: string; refusal: string | undefined } {
  let text = '';
  let refusal: string | undefined;
  const content = field(item, 'content');
  if (Array.isArray(content)) {
    for (const part of content) {
      const type = field(part, 'type');
      if (type === 'output_text') text += partText(part) ?? '';
      else if (type === 'refusal') refusal = (refusal ?? '') + (partText(part) ?? '');
    }
  }
  return { text, refusal };
}

/** The error a `response.failed` or `error` event stands for (when the source hands them on as values). */
function failure(e: Record<string, unknown>, responseId: string | undefined): ResponseStreamError {
  const seq = typeof e['sequence_number'] === 'number' ? e['sequence_number'] : undefined;
  const details = asRecord(e['type'] === 'response.failed' ? field(e['response'], 'error') : e) ?? {};
  const code = typeof details['code'] === 'string' ? details['code'] : undefined;
  const message = typeof details['message'] === 'string' ? details['message'] : 'the response failed';
  return new ResponseStreamError(String(e['type']), code, message, undefined, seq, responseId, e);
}

/**
 * The answer's JSON as it streams: the value parsed so far each time it changes (see `partialJson` for what
 * a partial value shows), then the value decoded with `codec` as the last emission before completion. The
 * JSON is the text of the first `message` output item (its `output_text` parts in order), or of the item at
 * `options.outputIndex`; each delta is parsed once, never the text again. Pair it with `jsonSchemaFormat`
 * on the request: the `null` its strict schema has the model write for an absent optional property is dropped
 * before decoding (partial values still show it), as `defineTool` does for arguments.
 *
 * Errors, never a value: the codec rejects the final value → `DecodeError` with the field `path`; the text is
 * not JSON → `JsonTextError` with the position; the model refuses → `RefusalError` with the refusal text;
 * `response.incomplete` before the JSON is complete → `IncompleteResponseError` with the reason;
 * `response.failed` / `error` → `ResponseStreamError`; cancelled → `ResponseCancelledError`; the events end
 * before a terminal event and before the JSON is complete → `StreamInterruptedError`. A response without a
 * message item (a turn of `runAgent` that only called tools) is skipped: the next response's answer is read.
 *
 * ```
 * events:  --d({"a)--d(":1,)--d("b":[)--d(2]})--completed--|
 *   outputObject(codec)
 * out:     --------x-----------y---------z-------(v|)
 *   x = { a: 1 }, y = { a: 1, b: [] }, z = { a: 1, b: [2] }, v = codec.decode(z)
 *
 * events:  --refusal.done("I can't")--|
 *   outputObject(codec)
 * out:     --#                           RefusalError("I can't")
 * ```
 *
 * ```ts
 * const Card = t.type({ title: t.string, tags: t.array(t.string) });
 * streamResponse({ model, input, text: { format: jsonSchemaFormat(Card, { name: 'card' }) } })
 *   .pipe(outputObject(Card))
 *   .subscribe((card) => render(card)); // partial cards, then the decoded one
 * ```
 */
export function outputObject<C extends t.Mixed>(codec: C, options: OutputObjectOptions = {}): OperatorFunction<ResponseStreamEvent, PartialValue<t.TypeOf<C>>> {
  const outputIndex = nonNegativeInt('outputIndex', options.outputIndex);
  return (source) =>
    new Observable<PartialValue<t.TypeOf<C>>>((subscriber) => {
      let parser: PartialJsonParser = createPartialJsonParser();
      /** The target item's output_index, once known; the text fed to the parser; where its current part began in it. */
      let target: number | undefined = outputIndex;
      let fed = '';
      let partIndex = -1;
      let partStart = 0;
      let refusal: string | undefined;
      let responseId: string | undefined;
      let done = false;

      const feed = (chunk: string): void => {
        if (chunk === '') return;
        fed += chunk;
        if (parser.write(chunk)) subscriber.next(parser.value as PartialValue<t.TypeOf<C>>);
      };
      /** The whole text of the target is `whole`: feeds what is new, or (a correction) reads it again. */
      const settle = (whole: string): void => {
        if (whole === fed) return;
        if (whole.startsWith(fed)) return feed(whole.slice(fed.length));
        parser = createPartialJsonParser();
        fed = '';
        feed(whole);
      };
      const fail = (err: unknown): void => {
        done = true;
        subscriber.error(err);
      };
      const finish = (complete: boolean, incompleteReason?: string): void => {
        let value: unknown;
        try {
          value = parser.end();
        } catch (err) {
          if (complete) return fail(err);
          return fail(incompleteReason !== undefined ? new IncompleteResponseError(incompleteReason === '' ? undefined : incompleteReason, responseId, 'the JSON answer') : new StreamInterruptedError(responseId, undefined, 'the events ended before the JSON answer was complete'));
        }
        // A strict format (jsonSchemaFormat) has the model write null for an absent optional property: undone
        // first, as defineTool does for arguments.
        const decoded = codec.decode(argumentsFor(codec, value));
        if (decoded._tag === 'Left') return fail(codecError(decoded.left, 'the JSON answer'));
        done = true;
        subscriber.next(decoded.right as PartialValue<t.TypeOf<C>>);
        subscriber.complete();
      };
      const isTarget = (oi: unknown): boolean => target !== undefined && oi === target;

      const step = (ev: ResponseStreamEvent): void => {
        const e = asRecord(ev);
        if (e === undefined) return;
        responseId = responseIdOf(e) ?? responseId;
        const type = e['type'];
        if (isCancelledEvent(e)) return fail(new ResponseCancelledError(String(type), typeof e['sequence_number'] === 'number' ? e['sequence_number'] : undefined, responseId, e));
        switch (type) {
          case 'response.output_item.added':
            if (target === undefined && isIndex(e['output_index']) && field(e['item'], 'type') === 'message') target = e['output_index'];
            return;
          case 'response.output_text.delta': {
            if (!isTarget(e['output_index']) || typeof e['delta'] !== 'string') return;
            const ci = e['content_index'];
            if (!isIndex(ci) || ci < partIndex) return;
            if (ci > partIndex) {
              partIndex = ci;
              partStart = fed.length;
            }
            return feed(e['delta']);
          }
          case 'response.output_text.done': {
            const ci = e['content_index'];
            if (!isTarget(e['output_index']) || typeof e['text'] !== 'string' || !isIndex(ci) || ci < partIndex) return;
            if (ci > partIndex) {
              partIndex = ci;
              partStart = fed.length;
            }
            return settle(fed.slice(0, partStart) + e['text']);
          }
          case 'response.refusal.delta':
            if (typeof e['delta'] === 'string') refusal = (refusal ?? '') + e['delta'];
            return;
          case 'response.refusal.done':
            return fail(new RefusalError(typeof e['refusal'] === 'string' ? e['refusal'] : (refusal ?? ''), responseId));
          case 'response.content_part.done':
            if (field(e['part'], 'type') === 'refusal') return fail(new RefusalError(partText(e['part']) ?? refusal ?? '', responseId));
            return;
          case 'response.output_item.done': {
            if (target === undefined && isIndex(e['output_index']) && field(e['item'], 'type') === 'message') target = e['output_index'];
            if (!isTarget(e['output_index'])) return;
            const texts = itemTexts(e['item']);
            if (texts.refusal !== undefined) return fail(new RefusalError(texts.refusal, responseId));
            return settle(texts.text);
          }
          case 'response.completed':
          case 'response.incomplete': {
            // What only the terminal event carries (no item events came for it).
            const output = field(e['response'], 'output');
            if (Array.isArray(output)) {
              if (target === undefined) {
                const i = output.findIndex((item) => field(item, 'type') === 'message');
                if (i >= 0) target = i;
              }
              if (target !== undefined && output[target] !== undefined) {
                const texts = itemTexts(output[target]);
                if (texts.refusal !== undefined) return fail(new RefusalError(texts.refusal, responseId));
                if (texts.text !== '' || fed === '') settle(texts.text);
              }
            }
            if (refusal !== undefined) return fail(new RefusalError(refusal, responseId));
            if (type === 'response.completed' && target === undefined) return; // no answer in this response: the next one's
            if (type === 'response.completed') return finish(true);
            const reason = field(field(e['response'], 'incomplete_details'), 'reason');
            return finish(false, typeof reason === 'string' ? reason : '');
          }
          case 'response.failed':
          case 'error':
            return fail(failure(e, responseId));
          default:
            return;
        }
      };

      return source.subscribe({
        next(ev) {
          if (done) return;
          try {
            step(ev);
          } catch (err) {
            fail(err);
          }
        },
        error: (err: unknown) => fail(err),
        complete: () => {
          if (done) return;
          if (refusal !== undefined) return fail(new RefusalError(refusal, responseId));
          finish(false);
        },
      });
    });
}
