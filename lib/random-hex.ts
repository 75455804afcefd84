// Random ids as hex, from Web Crypto (Node 20+ and browsers). The bytes are drawn a pool at a time: one
// getRandomValues per id cost a lease acquire ~8 µs (a call into the CSPRNG, then a string per byte), the
// largest part of the producer's own work for a stream that opens, as Node's randomUUID pools its bytes too.

const POOL = 4096;
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

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
  let s = '';
  for (let end = at + bytes; at < end; at++) s += HEX[pool[at]!]!;
  return s;
}
