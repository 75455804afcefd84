// One response of a capture decoded into Responses events, and how its stream ended.
import type { Observable } from 'rxjs';
import {
  DecodeError, fromChatChunks, fromChatCompletionsSSE, fromResponsesSSE, ResponseStreamError, StreamInterruptedError,
  type ResponseStreamEvent,
} from '../index.js';
import { ResponseStreamTracker } from '../lib/codecs.js';
import type { Capture, CaptureSegment } from './capture.js';

/** How one response's stream ended. */
export type Ending =
  /** A terminal event: `response.completed` or `response.incomplete` (or a chat stream's clean end). */
  | { readonly kind: 'finished' }
  /** `response.failed`, an `error` event or a provider's error report: the response failed, the capture is fine. */
  | { readonly kind: 'failed'; readonly eventType: string; readonly code: string | null; readonly message: string; readonly param: string | null }
  /** The capture is broken here: cut, malformed, or it stops before the response finished. */
  | { readonly kind: 'broken'; readonly reason: string };

export interface Decoded {
  readonly events: readonly ResponseStreamEvent[];
  readonly ending: Ending;
}

function failure(e: ResponseStreamError): Ending {
  // The error's message is `<event type>: <code>: <the provider's message>`.
  const prefix = `${e.eventType}: ${e.errorCode ? `${e.errorCode}: ` : ''}`;
  const message = e.message.startsWith(prefix) ? e.message.slice(prefix.length) : e.message;
  return { kind: 'failed', eventType: e.eventType, code: e.errorCode ?? null, message, param: e.param ?? null };
}

/** Decodes one response of a capture into Responses events (a chat one through `fromChatChunks`), keeping what decoded before a failure. */
export function decodeSegment(capture: Capture, segment: CaptureSegment, name: string, last: boolean): Promise<Decoded> {
  const events$: Observable<ResponseStreamEvent> =
    capture.kind === 'chat'
      ? fromChatCompletionsSSE(segment.sse, { requireDone: false }).pipe(fromChatChunks())
      : fromResponsesSSE(segment.sse, { errorEvents: 'value' });
  const payloads = segment.messages.filter((m) => m.data !== '[DONE]');
  const lineOf = (e: DecodeError): number | undefined =>
    capture.kind === 'chat'
      ? payloads[e.sequenceNumber ?? -1]?.line
      : payloads.find((m) => e.sequenceNumber !== undefined && m.payload?.['sequence_number'] === e.sequenceNumber)?.line;
  return new Promise((resolve) => {
    const events: ResponseStreamEvent[] = [];
    const end = (ending: Ending) => {
      const cut = last && capture.cutAtLine !== undefined;
      if (cut && ending.kind !== 'failed') {
        ending = { kind: 'broken', reason: `${name}:${capture.cutAtLine}: the capture was cut in the middle of this line, after ${events.length} events` };
      }
      resolve({ events, ending });
    };
    events$.subscribe({
      next: (e) => events.push(e),
      error: (err: unknown) => {
        if (err instanceof ResponseStreamError) return end(failure(err));
        if (err instanceof StreamInterruptedError) {
          const seq = events.map((e) => e.sequence_number).filter((n) => typeof n === 'number').pop();
          return end({ kind: 'broken', reason: `the capture ends before the response finished (no terminal event; last sequence_number ${seq ?? 'none'})` });
        }
        if (err instanceof DecodeError) {
          const line = lineOf(err);
          return end({ kind: 'broken', reason: `${line !== undefined ? `${name}:${line}` : name}: ${err.message}` });
        }
        end({ kind: 'broken', reason: err instanceof Error ? err.message : String(err) });
      },
      complete: () => {
        const t = events[events.length - 1];
        if (t && (t.type === 'response.failed' || t.type === 'error')) return end(failure(new ResponseStreamTracker().errorOf(t)));
        end({ kind: 'finished' });
      },
    });
  });
}
