// Bytes as lower-case hex, through a table of the 256 pairs: one string concatenation per byte, not a
// `toString(16)` and a `padStart` each.

const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** The bytes of `bytes` in [start, end) as lower-case hex: two characters each. */
export function hexOf(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let s = '';
  for (let i = start; i < end; i++) s += HEX[bytes[i]!]!;
  return s;
}
