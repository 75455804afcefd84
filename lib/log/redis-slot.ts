import type { Cluster } from 'ioredis';

// Redis Cluster's key → hash slot mapping (CRC16-XMODEM of the key's hash tag, mod 16384), and which node
// serves a slot as the Cluster client last saw it: the log groups its blocking reads per node and its
// batched writes per slot with them.

const TABLE = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x1021) & 0xffff : (c << 1) & 0xffff;
    t[i] = c;
  }
  return t;
})();

const encoder = new TextEncoder();

function crc16(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) & 0xffff) ^ TABLE[((crc >> 8) ^ b) & 0xff]!;
  return crc;
}

/** The hash slot of `key`: of what is between its first `{` and the next `}` when that is not empty, else of all of it. */
export function slotOf(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(encoder.encode(key.slice(open + 1, close))) % 16384;
  }
  return crc16(encoder.encode(key)) % 16384;
}

/** `items` in groups of one slot each: a group's items in their order, the groups in the order of their first item. */
export function groupBySlot<T>(items: readonly T[], slotOfItem: (item: T) => number): T[][] {
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const slot = slotOfItem(item);
    const group = groups.get(slot);
    if (group === undefined) groups.set(slot, [item]);
    else group.push(item);
  }
  return [...groups.values()];
}

/**
 * `items` in groups of the master serving their key's slot, as `cluster` last learned it (before it knows, a
 * group per slot): a group's items in their order, keyed by `host:port` (or `slot <n>`).
 */
export function groupByNode<T>(cluster: Cluster, items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const slot = slotOf(keyOf(item));
    const node = masterOfSlot(cluster, slot) ?? `slot ${slot}`;
    const group = groups.get(node);
    if (group === undefined) groups.set(node, [item]);
    else group.push(item);
  }
  return groups;
}

/** A hash tag (`{…}` content) whose slot is `slot`: found by trying short strings (about 16,000 tries at most). */
export function tagForSlot(slot: number, seed = 'w'): string {
  for (let i = 0; ; i++) {
    const tag = `${seed}${i.toString(36)}`;
    if (crc16(encoder.encode(tag)) % 16384 === slot) return tag;
  }
}

/** `host:port` of the master serving `slot`, as `cluster` last learned it; `undefined` before it knows. */
export const masterOfSlot = (cluster: Cluster, slot: number): string | undefined => cluster.slots[slot]?.[0];
