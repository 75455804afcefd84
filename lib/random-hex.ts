// Random ids as hex, from Web Crypto (Node 20+ and browsers). The bytes are drawn a pool at a time, as Node's
// randomUUID draws its own: one getRandomValues per id, then a string per byte, cost a lease acquire 3.7-4.5 us.
import { hexOf } from './hex.js';

const POOL = 4096;

let pool = new Uint8Array(0);
let at = 0;

/** `bytes` random bytes (at most 4096) as lower-case hex: `2 * bytes` characters. */
export function randomHex(bytes: number): string {
  if (!(Number.isSafeInteger(bytes) && bytes >= 1 && bytes <= POOL)) throw new RangeError(`randomHex takes 1 to ${POOL} bytes, not ${bytes}`);
  if (at + bytes > pool.length) {
    // A new pool each time, never one refilled in place: no byte is handed out twice.
    pool = globalThis.crypto.getRandomValues(new Uint8Array(POOL));
    at = 0;
  }
  const s = hexOf(pool, at, at + bytes);
  at += bytes;
  return s;
}
