// The test server's SSE answer: a transcript's events written as recorded, paced, and cut by a fault.
import type { ServerResponse } from 'node:http';
import type { Fault, Mutable, RecordedRequest, TestServerOptions } from './http-server-types.js';
import type { ParsedTranscript } from './transcripts.js';

/**
 * Writes `events` to `res` as SSE, one event per write (or `chunkSize` bytes), `chunkDelayMs` ms apart, and cut
 * where a `drop` or `stall` fault says; counts what went out on `record`. A drop marks itself (`markDropped`)
 * and closes the socket once the bytes so far are out.
 */
export function writeEvents(
  res: ServerResponse,
  record: Mutable<RecordedRequest>,
  events: ParsedTranscript['events'],
  fault: Fault | undefined,
  pacing: Pick<TestServerOptions, 'chunkSize' | 'chunkDelayMs'>,
  markDropped: () => void,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
  const lengths = events.map((e) => Buffer.byteLength(e.raw, 'utf8'));
  const ends: number[] = [];
  let total = 0;
  for (const n of lengths) ends.push((total += n));
  const all = Buffer.from(events.map((e) => e.raw).join(''), 'utf8');

  // Where the body stops, if a fault cuts it.
  let cut = total;
  if (fault?.type === 'drop' || fault?.type === 'stall') {
    if (fault.afterBytes !== undefined) cut = Math.min(total, Math.max(0, fault.afterBytes));
    else {
      const k = Math.max(0, fault.afterEvents ?? 0);
      const start = k === 0 ? 0 : (ends[k - 1] ?? total);
      const next = lengths[k];
      cut = fault.type === 'drop' && next ? start + Math.max(1, Math.floor(next / 2)) : start;
    }
  }

  // The pieces to write: fixed-size chunks, or one per event.
  const pieces: Array<[number, number]> = [];
  if (pacing.chunkSize && pacing.chunkSize > 0) {
    for (let at = 0; at < cut; at += pacing.chunkSize) pieces.push([at, Math.min(cut, at + pacing.chunkSize)]);
  } else {
    let at = 0;
    for (const end of ends) {
      if (at >= cut) break;
      pieces.push([at, Math.min(cut, end)]);
      at = end;
    }
  }

  const delay = pacing.chunkDelayMs ?? 0;
  let timer: NodeJS.Timeout | undefined;
  res.on('close', () => clearTimeout(timer));
  const finish = () => {
    if (res.destroyed) return;
    if (fault?.type === 'drop') {
      markDropped();
      // Close the socket once the bytes written so far are out: the client sees a partial event, then the end.
      res.socket?.destroySoon();
    } else if (fault?.type !== 'stall') {
      res.end();
    }
  };
  let i = 0;
  let sent = 0; // events wholly written: the pieces only move forward, so the count does too
  const step = () => {
    while (i < pieces.length) {
      if (res.destroyed) return;
      const [a, b] = pieces[i++] as [number, number];
      res.write(all.subarray(a, b));
      record.bytesSent = b;
      while (sent < ends.length && (ends[sent] as number) <= b) sent++;
      record.eventsSent = sent;
      if (delay > 0) {
        timer = setTimeout(step, delay);
        return;
      }
    }
    finish();
  };
  step();
}
