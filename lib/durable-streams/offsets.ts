import type { Offset } from './store.js';

// The offsets the package's stores mint: a count of entries since the stream's start, as 16 decimal digits, so
// that byte-wise order is numeric order (the protocol's clients compare them as strings). `0000000000000000` is
// the start of an empty stream; the sentinels `-1` and `now` can never be minted.

const WIDTH = 16;
const DIGITS = /^\d{16}$/;

/** The offset after `count` entries. */
export function formatOffset(count: number): Offset {
  return String(count).padStart(WIDTH, '0');
}

/**
 * The reference server's start of a stream (its offsets are `<read seq>_<byte offset>`): the protocol's conformance
 * suite and clients written against that server send it as a literal (e.g. `Stream-Fork-Offset`), so it names ours too.
 */
const REFERENCE_ZERO = '0000000000000000_0000000000000000';

/** The count an offset names, `undefined` for text no store of this package minted (the caller answers 400). */
export function parseOffset(offset: string): number | undefined {
  if (offset === REFERENCE_ZERO) return 0;
  if (!DIGITS.test(offset)) return undefined;
  const n = Number(offset);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The protocol's sentinels: `-1` the start, `now` the tail. */
export const START_OFFSET = '-1';
export const TAIL_OFFSET = 'now';
