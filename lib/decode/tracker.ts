import { checkCursor } from '../cursor.js';
import { oneOf } from '../options.js';
import { ResponseCancelledError, ResponseStreamError, SequenceGapError, StreamInterruptedError } from '../errors.js';
import { isCancelledEvent, responseIdOf } from '../events/guards.js';
import { errorDetails, GENERIC_MESSAGE, providerError, sequenceNumberOf } from './provider-error.js';

export type SequenceMode = 'tolerant' | 'strict';

export interface SequenceOptions {
  /** `'tolerant'` (default) accepts gaps, as real providers skip numbers; `'strict'` ends the stream on one. */
  readonly sequence?: SequenceMode;
  /** The stream resumes after this sequence number: anything at or below it is a duplicate. */
  readonly startingAfter?: number;
  /**
   * `'error'` (default): `response.failed` and `error` are emitted, then end the Observable with a
   * `ResponseStreamError`. `'value'`: they are emitted and the Observable completes.
   */
  readonly errorEvents?: 'error' | 'value';
}

/** @internal Throws the `InvalidOptionError` of a sequence option that cannot work. */
export function checkSequenceOptions(options: SequenceOptions): void {
  oneOf('sequence', options.sequence, ['tolerant', 'strict']);
  oneOf('errorEvents', options.errorEvents, ['error', 'value']);
  const invalid = checkCursor(options.startingAfter);
  if (invalid) throw invalid;
}

interface EventLike {
  readonly type: string;
  readonly sequence_number?: number;
  readonly response?: unknown;
  readonly [key: string]: unknown;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The per-stream bookkeeping shared by every Responses transport: duplicates by `sequence_number`,
 * the response id, and what a terminal event means.
 */
export class ResponseStreamTracker {
  responseId: string | undefined;
  lastSequenceNumber: number | undefined;
  private readonly strict: boolean;
  private readonly errorsAsValues: boolean;

  constructor(options: SequenceOptions = {}) {
    this.strict = options.sequence === 'strict';
    this.errorsAsValues = options.errorEvents === 'value';
    this.lastSequenceNumber = options.startingAfter;
  }

  /** `false` for a duplicate (to drop); throws `SequenceGapError` on a gap in strict mode. */
  admit(e: EventLike): boolean {
    const n = e.sequence_number;
    // An `error` is never dropped nor taken for a gap: it ends the stream, and losing it would hide why.
    if (e.type === 'error') {
      const s = sequenceNumberOf(n);
      if (s !== undefined && (this.lastSequenceNumber === undefined || s > this.lastSequenceNumber)) this.lastSequenceNumber = s;
    } else if (typeof n === 'number') {
      const last = this.lastSequenceNumber;
      if (last !== undefined && n <= last) return false;
      if (this.strict) {
        const expected = last === undefined ? 0 : last + 1;
        if (n !== expected) throw new SequenceGapError(expected, n, e.type);
      }
      this.lastSequenceNumber = n;
    }
    if (this.responseId === undefined) {
      const r = e.response;
      if (typeof r === 'object' && r !== null && typeof (r as { id?: unknown }).id === 'string') this.responseId = (r as { id: string }).id;
      else if (typeof e['response_id'] === 'string') this.responseId = e['response_id'] as string;
    }
    return true;
  }

  /** After emitting `e`: `'complete'`, an error to end with, or `undefined` to go on. */
  terminal(e: EventLike): 'complete' | ResponseStreamError | undefined {
    // A cancelled response is over for good: its own error, which no resume logic retries (and no `response.failed` reading).
    if (isCancelledEvent(e)) return this.errorsAsValues ? 'complete' : new ResponseCancelledError(e.type, e.sequence_number, responseIdOf(e) ?? this.responseId, e);
    switch (e.type) {
      case 'response.completed':
      case 'response.incomplete':
        return 'complete';
      case 'response.failed':
      case 'error':
        return this.errorsAsValues ? 'complete' : this.errorOf(e);
      default:
        return undefined;
    }
  }

  /** The error a `response.failed` or `error` event stands for. */
  errorOf(e: EventLike): ResponseStreamError {
    const seq = sequenceNumberOf(e.sequence_number);
    if (e.type === 'response.failed') {
      const r = isRecord(e.response) ? e.response : {};
      const id = typeof r['id'] === 'string' ? r['id'] : this.responseId;
      // `response.error` says why (or, from some providers, a top-level `error`); unchecked (validate: 'off'), either may
      // be missing or of any shape.
      const d = isRecord(r['error']) ? errorDetails(r['error']) : e['error'] !== undefined && e['error'] !== null ? errorDetails(e) : undefined;
      const message = d === undefined || d.message === GENERIC_MESSAGE ? 'the response failed' : d.message;
      return new ResponseStreamError(e.type, d?.code, message, undefined, seq, id, e);
    }
    // The same reading as a provider's error in any other shape (top-level or nested details, a type for a
    // missing code), so one error reads alike whichever path decoded it.
    const d = providerError('error', e, '');
    return new ResponseStreamError(e.type, d?.code, d?.message ?? GENERIC_MESSAGE, d?.param, seq, this.responseId, e);
  }

  interrupted(reason?: string): StreamInterruptedError {
    return new StreamInterruptedError(this.responseId, this.lastSequenceNumber, reason);
  }
}
