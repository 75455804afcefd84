// Request bodies, read whole up to the configured limit (413 past it, 408 when they stall), and parsed as
// JSON where a route needs to see inside (400 when they are not a JSON object).
import type { IncomingMessage } from 'node:http';
import { concatBytes } from '../lib/bytes.js';
import { GatewayHttpError, invalidRequest } from './errors.js';

/** The body's bytes, at most `maxBytes` (else 413), within `timeoutMs` (else 408). */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > maxBytes) return reject(tooLarge(maxBytes));
    const chunks: Uint8Array[] = [];
    let size = 0;
    let done = false;
    const finish = (e: GatewayHttpError | undefined): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (e) {
        // Stop reading: the rest is discarded (the connection closes after the error answer).
        req.resume();
        reject(e);
      } else resolve(concatBytes(chunks));
    };
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > maxBytes) return finish(tooLarge(maxBytes));
      chunks.push(new Uint8Array(c.buffer, c.byteOffset, c.byteLength));
    };
    const onEnd = (): void => finish(undefined);
    const onError = (): void => finish(invalidRequest('The request body could not be read.'));
    const timer = setTimeout(() => finish(new GatewayHttpError(408, `The request body did not arrive within ${timeoutMs} ms.`, { code: 'request_timeout' })), timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}


function tooLarge(maxBytes: number): GatewayHttpError {
  return new GatewayHttpError(413, `The request body is larger than this gateway accepts (${maxBytes} bytes).`, { code: 'request_too_large' });
}

/** The body as a JSON object, else a 400 naming what is wrong. */
export function parseJSONObject(bytes: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw invalidRequest('We could not parse the JSON body of your request. (HINT: This likely means you aren\'t using your HTTP library correctly. The OpenAI API expects a JSON payload.)', null, 'invalid_json');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidRequest('The request body must be a JSON object.', null, 'invalid_json');
  return value as Record<string, unknown>;
}
