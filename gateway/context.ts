// What every route shares: the options, the (measured) log, the producers and client streams in flight,
// the metrics, and how an error is answered.
import type { ServerResponse } from 'node:http';
import { tap } from 'rxjs';
import type { EventLog } from '../lib/log/types.js';
import { countEvent, isLogged, noteResponseId } from './access-log.js';
import { GatewayHttpError } from './errors.js';
import type { GatewayMetrics } from './metrics.js';
import type { ResolvedGatewayOptions } from './options.js';
import type { Producers } from './producers.js';
import { pumpSSE, type Pump, type PumpOptions } from './sse.js';

export interface GatewayContext {
  readonly options: ResolvedGatewayOptions;
  readonly log: EventLog;
  readonly producers: Producers;
  readonly metrics: GatewayMetrics;
  /** Client streams open now. */
  readonly pumps: Set<Pump>;
}

/**
 * A 429 unless one more stream fits under `maxConcurrentStreams`: client streams, and upstream streams still
 * recorded after their clients left (so clients that leave at once cannot pile up upstream requests).
 */
export function admit(ctx: GatewayContext): void {
  if (ctx.pumps.size >= ctx.options.maxConcurrentStreams || ctx.producers.size >= ctx.options.maxConcurrentStreams) {
    throw new GatewayHttpError(429, `This gateway serves at most ${ctx.options.maxConcurrentStreams} streams at once. Try again shortly.`, {
      type: 'rate_limit_error', code: 'too_many_streams',
    });
  }
}

/** Answers with the error's status and OpenAI-style JSON body (the connection closes after a 408 or 413). */
export function sendError(ctx: GatewayContext, res: ServerResponse, err: GatewayHttpError): void {
  ctx.metrics.error(err.status);
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(err.body);
  const close = err.status === 408 || err.status === 413;
  res.writeHead(err.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...(close ? { connection: 'close' } : {}),
    ...(err.status === 429 ? { 'retry-after': '1' } : {}),
  });
  res.end(body);
}

/** Starts a client stream counted in the metrics and the concurrency limit. */
export function startPump(ctx: GatewayContext, o: Omit<PumpOptions, 'onDone' | 'onEvent' | 'heartbeatMs'> & { onDone?: () => void }): void {
  ctx.metrics.clients++;
  let done = false;
  let pump: Pump | undefined;
  // The access log's response id: a stream's own (its created event) when the route named none.
  const logged = isLogged(o.res);
  const open: PumpOptions['open'] = logged
    ? (after, attempt) => o.open(after, attempt).pipe(tap((e) => e.type === 'response.created' && noteResponseId(o.res, (e as { response?: { id?: string } }).response?.id)))
    : o.open;
  const { metrics } = ctx;
  // Every field named, not `{ ...o, open, … }`: a literal that starts with a spread and adds a property gets a
  // hidden class of its own in V8 11 (Node 20): a runtime call and some 0.3 KB per stream (docs/performance.md).
  // `satisfies` makes a field PumpOptions gains later a compile error here, not one silently left out.
  pump = pumpSSE({
    res: o.res,
    startingAfter: o.startingAfter,
    open,
    live: o.live,
    heartbeatMs: ctx.options.heartbeatMs,
    onFailedBeforeStart: o.onFailedBeforeStart,
    cancelled: o.cancelled,
    afterReads: o.afterReads,
    // Per event: the access log's count only for a request it logs (else a WeakMap look-up that finds nothing).
    onEvent: logged
      ? () => {
          metrics.event();
          countEvent(o.res);
        }
      : () => metrics.event(),
    onDone: () => {
      done = true;
      ctx.metrics.clients--;
      if (pump) ctx.pumps.delete(pump);
      o.onDone?.();
    },
  } satisfies Record<keyof PumpOptions, unknown>);
  if (!done) ctx.pumps.add(pump);
}
