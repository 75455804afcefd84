// A producer in a process of its own, for test/log/redis.spec.ts: acquires the lease on a response (argv: Redis
// URL, response id, lease ms), prints its token, then appends one delta every 50 ms and never ends: the
// test kills it with SIGKILL, so that nothing releases the lease and it must lapse.
import { redisEventLog } from '../../lib/log/redis';

const [url, responseId, leaseMs] = process.argv.slice(2) as [string, string, string];

async function main(): Promise<void> {
  const log = redisEventLog({ url });
  const scope = { responseId };
  const lease = await log.acquire(scope, Number(leaseMs));
  await log.append(scope, lease.token, [{ type: 'response.created', response: { id: responseId, object: 'response', status: 'in_progress', output: [] }, sequence_number: 0 } as never]);
  process.stdout.write(`${lease.token}\n`);
  for (let n = 1; ; n++) {
    await new Promise((r) => setTimeout(r, 50));
    await log.renew(scope, lease.token, Number(leaseMs));
    await log.append(scope, lease.token, [{ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: `d${n}`, logprobs: [], sequence_number: n } as never]);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
