// A request body read whole, up to a byte limit. Over the limit the rest is drained unread (so the client, still
// sending, sees the 413 instead of a reset connection) and nothing past the limit is kept.

import type { IncomingMessage } from 'node:http';

export type BodyResult = { readonly ok: true; readonly body: Buffer } | { readonly ok: false; readonly reason: 'too_large' | 'aborted' };

export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    let size = 0;
    let over = Number.isFinite(declared) && declared > limit;
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer): void => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    };
    const finish = (result: BodyResult): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
      resolve(result);
    };
    const onEnd = (): void => finish(over ? { ok: false, reason: 'too_large' } : { ok: true, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks as unknown as readonly Uint8Array[], size) });
    const onAbort = (): void => finish({ ok: false, reason: 'aborted' });
    const onClose = (): void => {
      if (!req.complete) onAbort();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onAbort);
    req.on('close', onClose);
  });
}
