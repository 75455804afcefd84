// A log that takes packed appends (lib/log/packed.ts: redisEventLog) gets a writer's events as their JSON and
// marks, encoded as they were pushed; a wrapper of that log (`{ ...log, append }`) is another object, and its own
// `append` keeps getting the events unless it forwards the registration (`forwardPacked`, as the gateway's wrappers
// do: test/gateway/packed-wrappers.spec.ts).
import { from, lastValueFrom, toArray } from 'rxjs';
import { EventLogError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { memoryEventLog } from '../../lib/log/memory';
import { takesPacked, type PackedEvents } from '../../lib/log/packed';
import type { EventLog } from '../../lib/log/types';
import { persistTo } from '../../operators/persistTo';
import { completed, created, delta } from './contract';

const ID = 'resp_packed';
const events = (): ResponseStreamEvent[] => [created(ID), delta(1, 'a'), delta(2, 'b'), completed(ID, 3), delta(4, 'late')];

describe('packed appends', () => {
  it('a registered log gets the JSON as pushed and the marks, a terminal one as -1 - seq', async () => {
    const base = memoryEventLog();
    const got: PackedEvents[] = [];
    takesPacked(base, { encode: (e) => JSON.stringify(e), append: (_s, _t, p) => (got.push(p), Promise.resolve()) });
    const plain = jest.spyOn(base, 'append');
    const es = events();
    await lastValueFrom(from(es).pipe(persistTo(base), toArray()));
    expect(plain).not.toHaveBeenCalled();
    expect(got.flatMap((p) => p.marks)).toEqual([0, 1, 2, -4, 4]);
    expect(got.flatMap((p) => p.jsons)).toEqual(es.map((e) => JSON.stringify(e)));
    await base.close();
  });

  it('a wrapper of it is not it: its own append gets the events', async () => {
    const base = memoryEventLog();
    const packed = jest.fn(() => Promise.resolve());
    takesPacked(base, { encode: (e) => JSON.stringify(e), append: packed });
    const seen: number[] = [];
    const wrapper: EventLog = { ...base, append: (s, t, es) => (seen.push(...es.map((e) => e.sequence_number as number)), base.append(s, t, es)) };
    await lastValueFrom(from(events()).pipe(persistTo(wrapper), toArray()));
    expect(packed).not.toHaveBeenCalled();
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    await base.close();
  });

  it('an event the log cannot encode fails the writer as the append would have', async () => {
    const base = memoryEventLog();
    takesPacked(base, { encode: JSON.stringify, append: () => Promise.resolve() });
    const bad = { ...delta(1, 'x'), big: 1n } as unknown as ResponseStreamEvent;
    const error = await lastValueFrom(from([created(ID), bad]).pipe(persistTo(base), toArray())).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EventLogError);
    expect((error as EventLogError).reason).toBe('unavailable');
    await base.close();
  });
});
