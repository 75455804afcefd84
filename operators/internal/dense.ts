// Lists kept dense whatever the indices streamed (not exported from the package).

/** Sorted logical indices, one per element of a list with a gap; absent while each index is its position. */
export type Keys = number[];

/** The first position in `0..n` whose key is not below `k` (keys ascending). */
export function lowerBound(n: number, keyAt: (i: number) => number, k: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keyAt(mid) < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A copy of `list` with `f(element)` at logical `index` (earlier values keep the old list). While the
 * indices seen are 0..n-1 the position is the index; after a gap `keys` maps indices to positions, so the
 * cost depends on the list's length, never on the index value.
 */
export function placeAt(list: unknown, keys: Keys | undefined, index: number, f: (old: unknown) => unknown): [unknown[], Keys | undefined] {
  const arr: unknown[] = Array.isArray(list) ? list : [];
  let k = keys !== undefined && keys.length === arr.length ? keys : undefined; // a replaced list starts over
  if (k === undefined) {
    if (index <= arr.length) {
      const copy = arr.slice();
      copy[index] = f(arr[index]);
      return [copy, undefined];
    }
    k = [];
    for (let i = 0; i < arr.length; i++) k.push(i);
  }
  const keysNow = k;
  const pos = lowerBound(keysNow.length, (i) => keysNow[i]!, index);
  const copy = arr.slice();
  if (keysNow[pos] === index) {
    copy[pos] = f(arr[pos]);
  } else {
    keysNow.splice(pos, 0, index);
    copy.splice(pos, 0, f(undefined));
  }
  return [copy, keysNow];
}
