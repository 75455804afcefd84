import type { Checker } from './codec.js';
import { ResponseOutputItem } from './items.js';
import * as E from './responses.js';

// Hand-written checks for the event types a stream is mostly made of (the deltas, items, parts): plain `typeof`
// tests on the fields the codec requires, no allocation. The io-ts codecs stay the source of truth: a check
// accepts exactly what its codec's `is` accepts (test/events/fast-checks.spec.ts compares them on generated
// events), and an event it refuses goes through the codec, which names the failing field.
//
// Why: the codecs' generic `is` (one closure per codec, one feedback vector for all) reads the fields of a dozen
// kinds of event at shared sites, megamorphic ones; each function here reads one kind, or a few.

/**
 * Accepts what the codec it stands for accepts, given an event whose `type` is that codec's (the lookup table
 * dispatched on it, so the `type` literal is not checked again); `false` sends the event to the codec.
 */
export type FastCheck = (u: Record<string, unknown>) => boolean;

function seqOk(s: unknown): boolean {
  return s === undefined || typeof s === 'number';
}

function optString(s: unknown): boolean {
  return s === undefined || typeof s === 'string';
}

function isRecord(u: unknown): u is Record<string, unknown> {
  return typeof u === 'object' && u !== null && !Array.isArray(u);
}

/** `optional(t.array(JsonObject))`. */
function logprobsOk(l: unknown): boolean {
  if (l === undefined) return true;
  if (!Array.isArray(l)) return false;
  for (let i = 0; i < l.length; i++) if (!isRecord(l[i])) return false;
  return true;
}

function textDelta(u: Record<string, unknown>): boolean {
  return typeof u['delta'] === 'string' && typeof u['item_id'] === 'string' && typeof u['output_index'] === 'number' &&
    typeof u['content_index'] === 'number' && logprobsOk(u['logprobs']) && seqOk(u['sequence_number']);
}

function partDelta(u: Record<string, unknown>): boolean {
  return typeof u['delta'] === 'string' && typeof u['item_id'] === 'string' && typeof u['output_index'] === 'number' &&
    typeof u['content_index'] === 'number' && seqOk(u['sequence_number']);
}

function summaryDelta(u: Record<string, unknown>): boolean {
  return typeof u['delta'] === 'string' && typeof u['item_id'] === 'string' && typeof u['output_index'] === 'number' &&
    typeof u['summary_index'] === 'number' && seqOk(u['sequence_number']);
}

function itemDelta(u: Record<string, unknown>): boolean {
  return typeof u['delta'] === 'string' && typeof u['item_id'] === 'string' && typeof u['output_index'] === 'number' &&
    seqOk(u['sequence_number']);
}

function audioDelta(u: Record<string, unknown>): boolean {
  return typeof u['delta'] === 'string' && seqOk(u['sequence_number']);
}

function textDone(u: Record<string, unknown>): boolean {
  return typeof u['text'] === 'string' && typeof u['item_id'] === 'string' && typeof u['output_index'] === 'number' &&
    typeof u['content_index'] === 'number' && logprobsOk(u['logprobs']) && seqOk(u['sequence_number']);
}

function summaryTextDone(u: Record<string, unknown>): boolean {
  return typeof u['text'] === 'string' && typeof u['item_id'] === 'string' && typeof u['output_index'] === 'number' &&
    typeof u['summary_index'] === 'number' && seqOk(u['sequence_number']);
}

function argumentsDone(u: Record<string, unknown>): boolean {
  return typeof u['arguments'] === 'string' && typeof u['item_id'] === 'string' && typeof u['output_index'] === 'number' &&
    optString(u['name']) && seqOk(u['sequence_number']);
}

/** `SummaryTextPart` (and `ReasoningTextPart` with `type`). */
function textPart(p: unknown, type: string): boolean {
  return isRecord(p) && p['type'] === type && typeof p['text'] === 'string';
}

/** `ContentPart`: a tagged union whose unknown tags pass. */
function contentPart(p: unknown): boolean {
  if (typeof p !== 'object' || p === null) return false;
  const tag = (p as Record<string, unknown>)['type'];
  if (typeof tag !== 'string') return false;
  if (Array.isArray(p)) return tag !== 'output_text' && tag !== 'refusal' && tag !== 'reasoning_text';
  const q = p as Record<string, unknown>;
  switch (tag) {
    case 'output_text': return typeof q['text'] === 'string' && annotationsOk(q['annotations']);
    case 'refusal': return typeof q['refusal'] === 'string';
    case 'reasoning_text': return typeof q['text'] === 'string';
    default: return true;
  }
}

function annotationsOk(a: unknown): boolean {
  if (a === undefined) return true;
  if (!Array.isArray(a)) return false;
  for (let i = 0; i < a.length; i++) {
    const x: unknown = a[i];
    if (!isRecord(x) || typeof x['type'] !== 'string') return false;
  }
  return true;
}

function partsOk(list: unknown, type: string): boolean {
  if (!Array.isArray(list)) return false;
  for (let i = 0; i < list.length; i++) if (!textPart(list[i], type)) return false;
  return true;
}

/** `ResponseOutputItem`: messages, reasoning and function calls by hand, any other item by its codec. */
function outputItem(item: unknown): boolean {
  if (!isRecord(item)) return ResponseOutputItem.is(item);
  switch (item['type']) {
    case 'message': {
      const content = item['content'];
      if (typeof item['id'] !== 'string' || typeof item['role'] !== 'string' || !optString(item['status']) || !Array.isArray(content)) return false;
      for (let i = 0; i < content.length; i++) if (!contentPart(content[i])) return false;
      return true;
    }
    case 'reasoning': {
      const summary = item['summary'];
      const content = item['content'];
      const encrypted = item['encrypted_content'];
      return typeof item['id'] === 'string' && optString(item['status']) &&
        (summary === undefined || partsOk(summary, 'summary_text')) &&
        (content === undefined || partsOk(content, 'reasoning_text')) &&
        (encrypted === undefined || encrypted === null || typeof encrypted === 'string');
    }
    case 'function_call':
      return typeof item['call_id'] === 'string' && typeof item['name'] === 'string' && typeof item['arguments'] === 'string' &&
        optString(item['id']) && optString(item['status']);
    default:
      return ResponseOutputItem.is(item);
  }
}

function itemEvent(u: Record<string, unknown>): boolean {
  return typeof u['output_index'] === 'number' && outputItem(u['item']) && seqOk(u['sequence_number']);
}

function partEvent(u: Record<string, unknown>): boolean {
  return typeof u['item_id'] === 'string' && typeof u['output_index'] === 'number' && typeof u['content_index'] === 'number' &&
    contentPart(u['part']) && seqOk(u['sequence_number']);
}

function summaryPartEvent(u: Record<string, unknown>): boolean {
  return typeof u['item_id'] === 'string' && typeof u['output_index'] === 'number' && typeof u['summary_index'] === 'number' &&
    textPart(u['part'], 'summary_text') && seqOk(u['sequence_number']);
}

/** The fast check of each codec that has one (keyed by the codec, so any table holding it uses it). */
export const fastChecks: ReadonlyMap<Checker, FastCheck> = new Map<Checker, FastCheck>([
  [E.ResponseTextDeltaEvent, textDelta],
  [E.ResponseRefusalDeltaEvent, partDelta],
  [E.ResponseReasoningTextDeltaEvent, partDelta],
  [E.ResponseReasoningSummaryTextDeltaEvent, summaryDelta],
  [E.ResponseFunctionCallArgumentsDeltaEvent, itemDelta],
  [E.ResponseCustomToolCallInputDeltaEvent, itemDelta],
  [E.ResponseCodeInterpreterCallCodeDeltaEvent, itemDelta],
  [E.ResponseMcpCallArgumentsDeltaEvent, itemDelta],
  [E.ResponseAudioDeltaEvent, audioDelta],
  [E.ResponseAudioTranscriptDeltaEvent, audioDelta],
  [E.ResponseTextDoneEvent, textDone],
  [E.ResponseReasoningSummaryTextDoneEvent, summaryTextDone],
  [E.ResponseFunctionCallArgumentsDoneEvent, argumentsDone],
  [E.ResponseOutputItemAddedEvent, itemEvent],
  [E.ResponseOutputItemDoneEvent, itemEvent],
  [E.ResponseContentPartAddedEvent, partEvent],
  [E.ResponseContentPartDoneEvent, partEvent],
  [E.ResponseReasoningSummaryPartAddedEvent, summaryPartEvent],
  [E.ResponseReasoningSummaryPartDoneEvent, summaryPartEvent],
]);
