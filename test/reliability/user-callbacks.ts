// Shared by the user-callbacks suites: a short stream, a callback's failure, and a watch on what RxJS and
// Node would report as unhandled.
import { config as rxConfig, lastValueFrom, Observable, toArray } from 'rxjs';
import { fromResponsesSSE } from '../../lib/decode/responses-sse';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { memoryEventLog } from '../../lib/log/memory';
import type { EventLog } from '../../lib/log/types';
import { parseTranscript, textTranscript } from '../../testing/index';

const transcript = parseTranscript(textTranscript({ responseId: 'resp_cb', model: 'm', deltas: ['a ', 'b ', 'c'] }));
export const body = transcript.events.map((e) => e.raw).join('');
export const events = (): Observable<ResponseStreamEvent> => fromResponsesSSE(body);
export const boom = (): Error => new Error('the callback broke');

/** What RxJS and Node would have reported as unhandled while `run` went on (and a tick after it). */
export async function escaped(run: () => Promise<unknown>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onRejection = (e: unknown): void => void seen.push(e);
  const before = rxConfig.onUnhandledError;
  rxConfig.onUnhandledError = (e: unknown) => seen.push(e);
  process.on('unhandledRejection', onRejection);
  try {
    await run();
    await new Promise((r) => setTimeout(r, 20));
  } finally {
    rxConfig.onUnhandledError = before;
    process.off('unhandledRejection', onRejection);
  }
  return seen;
}

/** How an Observable ended: its error, or 'completed'. */
export const ending = (o: Observable<unknown>): Promise<unknown> => lastValueFrom(o.pipe(toArray())).then(() => 'completed', (e: unknown) => e);

/** A memory log whose `method` throws synchronously, rejects, or returns something that is not a promise. */
export function brokenLog(method: keyof EventLog, how: 'throws' | 'rejects' | 'returns no promise'): EventLog {
  const inner = memoryEventLog();
  const broken = (): unknown => {
    if (how === 'throws') throw boom();
    if (how === 'rejects') return Promise.reject(boom());
    return undefined;
  };
  return { ...inner, close: () => inner.close(), [method]: broken } as EventLog;
}

