// A request body read whole, up to a byte limit. Over the limit, up to DRAIN_BYTES more are drained unread (so a
// client still sending sees the 413 rather than a reset connection); past that the 413 goes at once and closes the
// connection, so a client sending without end cannot hold the server reading. Nothing past the limit is kept.

import type { IncomingMessage } from 'node:http';

export type BodyResult =
  | { readonly ok: true; readonly body: Buffer }
  /** `closeConnection`: the rest of the body was left unread; the answer must close the connection. */
  | { readonly ok: false; readonly reason: 'too_large'; readonly closeConnection: boolean }
  | { readonly ok: false; readonly reason: 'aborted' };

const DRAIN_BYTES = 1024 * 1024;

export function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit + DRAIN_BYTES) {
      resolve({ ok: false, reason: 'too_large', closeConnection: true });
      return;
    }
    let size = 0;
    const chunks: Buffer[] = [];
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else if (size > limit + DRAIN_BYTES) finish({ ok: false, reason: 'too_large', closeConnection: true });
      else chunks.length = 0;
    };
    const finish = (result: BodyResult): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onAbort);
      req.off('close', onClose);
      resolve(result);
    };
    const onEnd = (): void =>
      finish(
        size > limit
          ? { ok: false, reason: 'too_large', closeConnection: false }
          : { ok: true, body: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks as unknown as readonly Uint8Array[], size) },
      );
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
