// Recipe: a background response that survives a restart. Save the cursor as events arrive; after a
// crash (or a deploy), a new process resumes from the saved cursor with `resumeFromCursor`: no event
// twice, none lost. Within one process, `resumeFrom` also rides out dropped connections.
import { from, lastValueFrom, take, toArray, type Observable } from 'rxjs';
import {
  outputText, resumeFrom, resumeFromCursor, retrieveResponseStream, streamResponse,
  type ClientConfig, type ResponseStreamEvent, type ResumeCursor,
} from '../index.js';

/** Where the cursor lives between processes: a file, Redis, localStorage… */
export interface CursorStore {
  load(): ResumeCursor | undefined;
  save(cursor: ResumeCursor): void;
}

export function memoryStore(): CursorStore & { saves: number } {
  let value: ResumeCursor | undefined;
  return {
    saves: 0,
    load: () => value,
    save(c) {
      value = c;
      this.saves++;
    },
  };
}

export interface BackgroundOptions extends ClientConfig {
  readonly model?: string;
  readonly store?: CursorStore;
  /** The first process "crashes" after this many events. */
  readonly crashAfter?: number;
}

const reconnect = (config: ClientConfig) => (c: ResumeCursor) => retrieveResponseStream(c.responseId, { startingAfter: c.sequenceNumber }, config);

/** Starts (or continues) the response; `events$` survives dropped connections and records the cursor. */
export function follow(config: ClientConfig, store: CursorStore, model: string): Observable<ResponseStreamEvent> {
  const saved = store.load();
  const options = { onCursor: (c: ResumeCursor) => store.save(c), delayMs: 200 };
  return saved
    ? resumeFromCursor(saved, reconnect(config), options)
    : streamResponse({ model, input: 'Write a long story.', background: true, store: true }, config).pipe(resumeFrom(reconnect(config), options));
}

export async function main(options: BackgroundOptions = {}) {
  const store = options.store ?? memoryStore();
  const model = options.model ?? 'gpt-5.4-nano';
  // Process 1: streams a while, then dies (take() unsubscribes, which closes the connection).
  const first = await lastValueFrom(follow(options, store, model).pipe(take(options.crashAfter ?? 8), toArray()));
  const cursor = store.load();
  // Process 2: starts from the saved cursor and gets the rest.
  const rest = await lastValueFrom(follow(options, store, model).pipe(toArray()));
  const sequence = [...first, ...rest].map((e) => e.sequence_number);
  // The text of the whole response, rebuilt from both halves.
  const text = await lastValueFrom(from([...first, ...rest]).pipe(outputText()), { defaultValue: '' });
  return { cursor, firstEvents: first.length, restEvents: rest.length, sequence, text };
}
