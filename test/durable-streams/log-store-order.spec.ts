// One process's appends to a path are stored in the order they were called, whatever each one's look-up of its stream
// costs: a directory read that answers late (a Cluster node, a cold cache) must not let a later append overtake.
import { eventLogStreamStore } from '../../lib/durable-streams/log-store';
import { CallOrder } from '../../lib/durable-streams/log-store-order';
import { memoryEventLog } from '../../lib/log/memory';
import type { EventLog } from '../../lib/log/types';
import { json, post, readAll, uniquePath } from './log-store-suite';

const later = <T>(ms: number, value: T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(value), ms));

/** `log` whose `state` answers after `delays[i]` ms on its i-th call once `armed` (0: at once). */
function slowStates(log: EventLog): { log: EventLog; arm: (delays: number[]) => void } {
  let delays: number[] = [];
  const out: EventLog = {
    acquire: (...a) => log.acquire(...a),
    renew: (...a) => log.renew(...a),
    release: (...a) => log.release(...a),
    append: (...a) => log.append(...a),
    read: (...a) => log.read(...a),
    wait: (...a) => log.wait(...a),
    cancel: (...a) => log.cancel(...a),
    close: () => log.close(),
    state: async (scope) => {
      const ms = delays.shift() ?? 0;
      const s = await log.state(scope);
      return ms > 0 ? later(ms, s) : s;
    },
  };
  return { log: out, arm: (d) => (delays = d) };
}

describe('eventLogStreamStore append order', () => {
  const base = memoryEventLog();
  afterAll(() => base.close());

  it('stores appends called together in call order when the first ones look their stream up slowest', async () => {
    const { log, arm } = slowStates(base);
    const store = eventLogStreamStore(log);
    const path = uniquePath('order');
    await store.create!(path, json());
    arm([30, 20, 10]); // the first three appends' directory look-ups answer last, in reverse order
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => store.append!(path, post([`"${i}"`]))));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill('appended'));
    expect((await readAll(store, path)).entries).toEqual(['"0"', '"1"', '"2"', '"3"', '"4"', '"5"']);
  });

  it('keeps the order of the appends after one whose stream is not found, and answers each its own', async () => {
    const { log, arm } = slowStates(base);
    const store = eventLogStreamStore(log);
    const path = uniquePath('order-missing');
    await store.create!(path, json());
    arm([20]);
    const [missing, ...rest] = await Promise.all([
      store.append!(uniquePath('nowhere'), post(['"x"'])),
      ...Array.from({ length: 3 }, (_, i) => store.append!(path, post([`"${i}"`]))),
    ]);
    expect(missing).toEqual({ status: 'not_found' });
    expect(rest.map((r) => r.status)).toEqual(['appended', 'appended', 'appended']);
    arm([25, 0]);
    await Promise.all([store.append!(path, post(['"3"'])), store.append!(path, post(['"4"']))]);
    expect((await readAll(store, path)).entries).toEqual(['"0"', '"1"', '"2"', '"3"', '"4"']);
  });
});

describe('CallOrder', () => {
  it('enters in call order per key, each key on its own, and releases a turn when `enter` returns', async () => {
    const order = new CallOrder();
    const entered: string[] = [];
    const settle: Array<() => void> = [];
    const enter = (v: string) => {
      entered.push(v);
      return new Promise<string>((resolve) => settle.push(() => resolve(v)));
    };
    const calls = [order.run('a', later(30, 'a0'), enter), order.run('a', later(10, 'a1'), enter), order.run('b', later(5, 'b0'), enter), order.run('a', later(0, 'a2'), enter)];
    await later(50, undefined);
    // all four entered although none of what `enter` started has settled: the turn is only the entering
    expect(entered).toEqual(['b0', 'a0', 'a1', 'a2']);
    settle.forEach((s) => s());
    expect(await Promise.all(calls)).toEqual(['a0', 'a1', 'b0', 'a2']);
  });

  it('rejects a call whose look-up failed in its turn, and lets the later ones through', async () => {
    const order = new CallOrder();
    const entered: number[] = [];
    const enter = (v: number) => (entered.push(v), v);
    const failing = later(20, undefined).then(() => Promise.reject(new Error('look-up failed')));
    const calls = [order.run('k', later(30, 0), enter), order.run('k', failing, enter), order.run('k', later(0, 2), enter)];
    const results = await Promise.allSettled(calls);
    expect(entered).toEqual([0, 2]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('look-up failed'));
  });
});
