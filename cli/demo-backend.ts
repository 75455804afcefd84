// Where the demo's pipelines go: the embedded loopback servers (offline, the default) or the API (--live),
// with the response bytes counted and the resume step's connection cut.
import { Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { responseIdOf } from '../lib/events/guards.js';
import { connectResponsesSocket, StreamInterruptedError, type ClientConfig, type ResponsesSocket, type ResponseStreamEvent } from '../index.js';
import { startResponsesWebSocketServer, startTestServer, textTranscript, type ResponsesWebSocketServer, type TestServer } from '../testing/index.js';
import { demoDurable } from './demo-durable.js';
import { embeddedTranscripts } from './transcripts.js';

/** Where the pipelines go: the loopback servers or the API. */
export interface Backend {
  readonly label: string;
  readonly http: ClientConfig;
  readonly socket: () => ResponsesSocket;
  readonly model: (step: 'text' | 'tools' | 'tool-answer' | 'background' | 'lanes' | 'durable') => string;
  /** Makes the first connection of the resume step break mid-stream. */
  readonly cut: MonoTypeOperatorFunction<ResponseStreamEvent>;
  close(): Promise<void>;
}

/** Events the background response gets before its first connection breaks. */
export const DROP_AFTER = 12;

/** The WebSocket step's lanes: what each asks, and what the loopback answers. */
export const LANES: ReadonlyArray<{ lane: string; input: string; answer: string }> = [
  { lane: 'summary', input: 'Summarise RxJS in one sentence.', answer: 'RxJS composes asynchronous events as streams of values.' },
  { lane: 'translate', input: 'Translate "good morning" into French.', answer: 'Bonjour, or more formally: bonne matinée.' },
  { lane: 'title', input: 'A title for a post about streaming.', answer: 'Every Token, As It Happens' },
];

/** Counts the bytes of every response body, whoever sends them. */
function countingFetch(counter: { bytes: number }): typeof fetch {
  return async (input, init) => {
    const res = await globalThis.fetch(input as string, init);
    if (!res.body) return res;
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          counter.bytes += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/** The embedded loopback servers (HTTP and WebSocket) serving the embedded transcripts, the background response cut. */
export async function offlineBackend(chunkDelayMs: number, counter: { bytes: number }): Promise<Backend & { server: TestServer; ws: ResponsesWebSocketServer }> {
  const server = await startTestServer({
    transcripts: { ...embeddedTranscripts(), 'demo-durable': demoDurable() },
    chunkDelayMs,
    // The first request for the background response is cut half-way through an event.
    faults: (r) => (r.route === 'responses.create' && (r.body as { model?: unknown } | undefined)?.model === 'demo-background' ? { type: 'drop', afterEvents: DROP_AFTER } : undefined),
  });
  const ws = await startResponsesWebSocketServer({
    respond: (request) => {
      const lane = LANES.find((l) => l.input === request['input']) ?? LANES[0]!;
      return textTranscript({ responseId: `resp_lane_${lane.lane}`, model: 'demo-model', deltas: lane.answer.split(/(?<= )/) });
    },
  });
  return {
    label: `loopback servers ${server.baseURL} and ${ws.url}`,
    server,
    ws,
    http: { baseURL: server.baseURL, apiKey: 'demo-key', fetch: countingFetch(counter) },
    socket: () => connectResponsesSocket({ url: ws.url, apiKey: 'demo-key' }),
    model: (step) => (step === 'lanes' ? 'demo-model' : `demo-${step}`),
    cut: (s) => s,
    close: async () => {
      await Promise.all([server.close(), ws.close()]);
    },
  };
}

/** The OpenAI API (or `baseURL`'s provider); the resume step's connection is cut here. */
export function liveBackend(apiKey: string, model: string, baseURL: string | undefined, counter: { bytes: number }): Backend {
  const where = baseURL ? { baseURL } : {};
  return {
    label: `${baseURL ?? 'the OpenAI API'} (model ${model})`,
    http: { apiKey, fetch: countingFetch(counter), ...where },
    socket: () => connectResponsesSocket({ apiKey, ...where }),
    model: () => model,
    // The API will not drop a connection on request: break it here, as a network would.
    cut: (source) =>
      new Observable<ResponseStreamEvent>((subscriber) => {
        let n = 0;
        let id: string | undefined;
        const sub = source.subscribe({
          next(e) {
            const rid = responseIdOf(e);
            if (rid) id = rid;
            subscriber.next(e);
            if (++n === DROP_AFTER) subscriber.error(new StreamInterruptedError(id, e.sequence_number, 'connection cut by the demo'));
          },
          error: (err: unknown) => subscriber.error(err),
          complete: () => subscriber.complete(),
        });
        return () => sub.unsubscribe();
      }),
    close: async () => undefined,
  };
}
