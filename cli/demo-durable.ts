// The demo's durable-stream step (`openai-rx demo`, step 6): a background response recorded to the in-memory
// event log by persistTo, its producer dropped mid-answer without releasing its lease (as a crashed process
// leaves it), and a reader that was tailing the log with fromEventLog taking the lapsed lease over and
// finishing the stream from the provider (GET /responses/{id}?stream=true&starting_after=N).
import { lastValueFrom, tap, toArray, type MonoTypeOperatorFunction, type Subscription } from 'rxjs';
import {
  fromEventLog, memoryEventLog, outputText, persistTo, streamResponse,
  type ClientConfig, type EventLog, type ResponseStreamEvent,
} from '../index.js';
import { textTranscript } from '../testing/index.js';
import { paint, type Out } from './style.js';

/** The producer is dropped once this many events are stored. */
export const DURABLE_DROP_AFTER = 10;
/** The producer's lease: short, so that the reader takes over quickly once nobody renews it. */
export const DURABLE_LEASE_MS = 250;

const DURABLE_ANSWER =
  'A durable stream is written to an event log as it arrives, so any reader can follow it, ' +
  'and when its producer goes away another reader takes the lease over and finishes it.';

/** The step's background response (offline), served by the demo's loopback server under model `demo-durable`. */
export function demoDurable(responseId = 'resp_demo_durable'): string {
  return textTranscript({ responseId, model: 'demo-model', deltas: DURABLE_ANSWER.split(/(?<= )/), background: true });
}

export interface DurableResult {
  readonly responseId: string;
  /** The reader's text, and the text of the terminal event's response. */
  readonly text: string;
  readonly finalText: string | undefined;
  /** The highest sequence number in the log when the producer was dropped. */
  readonly storedAtDrop: number | undefined;
  /** The reader's sequence numbers, and whether they equal the log's recording, each once and in order. */
  readonly sequence: readonly number[];
  readonly equalsRecording: boolean;
  /** From the drop to the reader's first event from upstream, in ms. */
  readonly takeoverMs: number | undefined;
}

interface DurableContext {
  readonly out: Out;
  readonly http: ClientConfig;
  readonly model: string;
  readonly count: MonoTypeOperatorFunction<ResponseStreamEvent>;
  /** Renders the reader's growing text. */
  readonly view: { write(text: string): void };
}

/** The text of the terminal event's response (its `output_text` parts), as the provider finished it. */
function completedText(events: readonly ResponseStreamEvent[]): string | undefined {
  const last = events[events.length - 1] as { type?: string; response?: { output?: Array<{ type?: string; content?: Array<{ type?: string; text?: string }> }> } } | undefined;
  if (last?.type !== 'response.completed' || !last.response?.output) return undefined;
  return last.response.output.flatMap((item) => (item.type === 'message' ? (item.content ?? []) : [])).map((c) => (c.type === 'output_text' ? (c.text ?? '') : '')).join('');
}

export async function durableStep(ctx: DurableContext): Promise<{ value: DurableResult; produced: string }> {
  const { out } = ctx;
  const w = (s: string) => out.stream.write(s);
  const log = memoryEventLog();
  let producer: Subscription | undefined;
  let dropped = false;
  let droppedAt = 0;
  let boundary: number | undefined; // the highest sequence number stored when the producer was dropped
  // The producer's view of the log loses its release, as a crashed process would (its lease has to lapse),
  // and the producer is dropped as soon as its DURABLE_DROP_AFTER-th event is stored: mid-answer.
  const crashing: EventLog = {
    ...log,
    release: async () => undefined,
    async append(scope, token, events) {
      await log.append(scope, token, events);
      const last = events[events.length - 1]?.sequence_number;
      if (dropped || typeof last !== 'number' || last < DURABLE_DROP_AFTER - 1) return;
      dropped = true;
      droppedAt = Date.now();
      boundary = last;
      producer?.unsubscribe();
    },
  };
  try {
    const responseId = await new Promise<string>((resolve, reject) => {
      producer = streamResponse({ model: ctx.model, input: 'What is a durable stream?', background: true, store: true }, ctx.http)
        // One event per append, so that the drop comes right after the DURABLE_DROP_AFTER-th.
        .pipe(persistTo(crashing, { leaseMs: DURABLE_LEASE_MS, maxBatchDelayMs: 0, maxBatchSize: 1 }))
        .subscribe({
          next(e) {
            const id = e.type === 'response.created' ? (e as { response?: { id?: string } }).response?.id : undefined;
            if (id !== undefined) resolve(id);
          },
          error: reject,
          complete: () => reject(new Error('the producer finished before the demo dropped it')),
        });
    });

    // The reader follows the log from the start; `upstream` lets it finish the stream once the lease lapses.
    let takeoverMs: number | undefined;
    const events: ResponseStreamEvent[] = [];
    w('   ');
    const text = await lastValueFrom(
      fromEventLog(log, responseId, { upstream: ctx.http, leaseMs: 5000 }).pipe(
        ctx.count,
        tap((e) => {
          events.push(e);
          if (takeoverMs === undefined && boundary !== undefined && typeof e.sequence_number === 'number' && e.sequence_number > boundary) {
            takeoverMs = Date.now() - droppedAt;
            w(paint(out, 'yellow', ` ⟲ producer dropped after seq ${boundary}; its lease lapsed and this reader took over (${takeoverMs} ms) `));
          }
        }),
        outputText(),
        tap((t) => ctx.view.write(t)),
      ),
      { defaultValue: '' },
    );
    w('\n');
    // A third reader, from the log alone (no upstream): what the log now holds.
    const recording = await lastValueFrom(fromEventLog(log, responseId).pipe(toArray()));
    const sequence = events.flatMap((e) => (typeof e.sequence_number === 'number' ? [e.sequence_number] : []));
    const once = sequence.every((n, i) => i === 0 || n === sequence[i - 1]! + 1);
    const equalsRecording = once && JSON.stringify(events) === JSON.stringify(recording);
    const finalText = completedText(events);
    const ok = equalsRecording && text === finalText;
    w(`   ${paint(out, ok ? 'green' : 'red', `log: seq ${sequence[0]}…${sequence[sequence.length - 1]}, each once; the reader's ${text.length} characters ${ok ? 'equal the recording ✓' : 'differ from the recording ✗'}`)}\n`);
    return {
      value: { responseId, text, finalText, storedAtDrop: boundary, sequence, equalsRecording, takeoverMs },
      produced: `fromEventLog: took over after seq ${boundary ?? '—'}, ${text.length} characters`,
    };
  } finally {
    producer?.unsubscribe();
    await log.close();
  }
}
