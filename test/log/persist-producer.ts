// Process A of test/log/multiprocess.spec.ts: streams a background response from the loopback fake provider
// through persistTo into Redis (argv: Redis URL, baseURL, model = transcript name, owner, lease ms). Prints one
// line per acknowledged append (`ack <last sequence_number>`), then `done` or `error <name> <reason>`, and
// exits. The test kills it with SIGKILL mid-stream, or kills Redis under it.
import { lastValueFrom } from 'rxjs';
import { persistTo } from '../../operators/persistTo';
import { streamResponse } from '../../lib/http/transports';
import type { EventLog } from '../../lib/log/types';
import { runChildScript } from './takeover-helpers';

const [url, baseURL, model, owner, leaseMs] = process.argv.slice(2) as [string, string, string, string, string];

runChildScript(
  url,
  async (log) => {
    // What the test needs to know: which events Redis acknowledged (so that none of them may be lost).
    const acking: EventLog = {
      ...log,
      append: async (scope, token, events) => {
        await log.append(scope, token, events);
        const last = events.at(-1)?.sequence_number;
        if (last !== undefined) process.stdout.write(`ack ${last}\n`);
      },
    };
    await lastValueFrom(
      streamResponse({ model, input: 'count', background: true }, { baseURL, apiKey: 'sk-test' }).pipe(persistTo(acking, { owner, leaseMs: Number(leaseMs) })),
    );
  },
  (e) => {
    const err = e as { name?: string; reason?: string };
    return `${err.name ?? 'unknown'} ${err.reason ?? '-'}`;
  },
);
