// Redis stream entry ids (`<ms>-<seq>`; the log stores an event under `<sequence_number>-1`, several of one append
// under the last one's: lib/log/redis-entries.ts) and entries.

/** A stream entry as ioredis returns it: id and flat field/value list. */
export type StreamEntry = [id: string, fields: string[]];

/** A parsed entry id: [ms part, sequence part]. */
export type Id = readonly [number, number];

export const parseId = (id: string): Id => {
  const dash = id.indexOf('-');
  return dash < 0 ? [Number(id), 0] : [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
};

/** Whether `a` comes after `b`. */
export const later = (a: Id, b: Id): boolean => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

export const idText = (id: Id): string => `${id[0]}-${id[1]}`;
