// A script's second call goes by SHA (EVALSHA) as soon as its first (EVAL) has answered, whatever else the
// process is doing. The SHA was once Web Crypto's asynchronous digest: on a busy machine its answer could come
// after the first EVAL's, the second call went whole again, and the ACL spec's user refused EVALSHA was never
// refused (once, in a clean-machine-check run at c82e784). Here Web Crypto never answers: the log must not need it.
import { redisEventLog } from '../../lib/log/redis';
import type { LogScope } from '../../lib/log/types';
import { created, delta } from './contract';
import { commandCalls } from './outcomes';
import { redisForSuite } from './redis-server';

jest.setTimeout(30_000);

const redis = redisForSuite();
let n = 0;
const scope = (): LogScope => ({ responseId: `resp_sha_${process.pid}_${++n}` });

let digest: jest.SpiedFunction<SubtleCrypto['digest']>;
beforeEach(() => {
  digest = jest.spyOn(globalThis.crypto.subtle, 'digest').mockImplementation(() => new Promise<ArrayBuffer>(() => undefined));
});
afterEach(() => digest.mockRestore());

/** EVAL and EVALSHA calls Redis ran during `f`. */
async function scripts(f: () => Promise<void>): Promise<{ eval: number; evalsha: number }> {
  const [e0, s0] = [await commandCalls(redis.admin, 'eval'), await commandCalls(redis.admin, 'evalsha')];
  await f();
  return { eval: (await commandCalls(redis.admin, 'eval')) - e0, evalsha: (await commandCalls(redis.admin, 'evalsha')) - s0 };
}

test("the write path: an append's script goes whole once, then by SHA", async () => {
  const log = redisEventLog({ url: redis.server.url });
  const s = scope();
  try {
    const { token } = await log.acquire(s, 60_000);
    await log.append(s, token, [created(s.responseId)]); // the APPEND script's first call: whole
    const second = await scripts(() => log.append(s, token, [delta(1)]));
    expect(second).toEqual({ eval: 0, evalsha: 1 });
  } finally {
    await log.close();
  }
});

test('the calls run one at a time (cancel): whole once, then by SHA', async () => {
  const log = redisEventLog({ url: redis.server.url });
  try {
    await log.cancel(scope());
    const second = await scripts(() => log.cancel(scope()));
    expect(second).toEqual({ eval: 0, evalsha: 1 });
  } finally {
    await log.close();
  }
  expect(digest).not.toHaveBeenCalled();
});
