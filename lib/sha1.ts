// SHA-1, synchronously: Redis names a cached script by its SHA-1 (EVALSHA), and the log must know that name
// by the time a script's first EVAL has answered. Web Crypto's digest is asynchronous only, and on a busy
// machine its answer could come after that (then a second call went whole again, and a user refused EVALSHA
// was never refused). Node's own hash where the runtime offers it without an import (Node 20.16+: a script's
// first digest in JavaScript runs as interpreted code, docs/performance.md); else this file's. Not for security:
// the scripts are the package's own text.

import { hexOf } from './hex.js';

interface NodeHash {
  update(text: string, encoding: 'utf8'): NodeHash;
  digest(encoding: 'hex'): string;
}
type Runtime = { process?: { getBuiltinModule?: (id: string) => { createHash?: (algorithm: string) => NodeHash } | undefined } };

const native = ((): ((text: string) => string) | undefined => {
  try {
    const createHash = (globalThis as Runtime).process?.getBuiltinModule?.('node:crypto')?.createHash;
    return createHash && ((text) => createHash('sha1').update(text, 'utf8').digest('hex'));
  } catch {
    return undefined;
  }
})();

/** The SHA-1 of `text`'s UTF-8 bytes, as 40 lower-case hex digits. */
export const sha1Hex: (text: string) => string = native ?? portableSha1Hex;

const rotl = (x: number, n: number): number => (x << n) | (x >>> (32 - n));
/** The round constants, a fifth of the rounds each. */
const K = Int32Array.of(0x5a827999, 0x6ed9eba1, 0x8f1bbcdc | 0, 0xca62c1d6 | 0);

/** `sha1Hex` in JavaScript alone (browsers, Node before 20.16). */
export function portableSha1Hex(text: string): string {
  const bytes = new TextEncoder().encode(text);
  const n = bytes.length;
  // The message, then a 1 bit, zeros, and the length in bits (64, big-endian), in 64-byte blocks of 16 words.
  const words = (((n + 8) >>> 6) + 1) * 16;
  const m = new Int32Array(words);
  for (let i = 0; i < n; i++) m[i >>> 2]! |= bytes[i]! << (24 - (i & 3) * 8);
  m[n >>> 2]! |= 0x80 << (24 - (n & 3) * 8);
  m[words - 2] = Math.floor(n / 0x20000000); // n * 8 / 2^32
  m[words - 1] = n << 3;

  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  const w = new Int32Array(80);
  // Plain variables, no array per round: the first call runs in the interpreter (once per script).
  for (let block = 0; block < words; block += 16) {
    for (let t = 0; t < 16; t++) w[t] = m[block + t]!;
    for (let t = 16; t < 80; t++) w[t] = rotl(w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!, 1);
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let t = 0; t < 80; t++) {
      let f: number;
      if (t < 20) f = (b & c) | (~b & d);
      else if (t < 40 || t >= 60) f = b ^ c ^ d;
      else f = (b & c) | (b & d) | (c & d);
      const next = (rotl(a, 5) + f + e + K[(t / 20) | 0]! + w[t]!) | 0;
      e = d;
      d = c;
      c = rotl(b, 30);
      b = a;
      a = next;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  const out = new DataView(new ArrayBuffer(20));
  [h0, h1, h2, h3, h4].forEach((h, i) => out.setInt32(4 * i, h));
  return hexOf(new Uint8Array(out.buffer));
}
