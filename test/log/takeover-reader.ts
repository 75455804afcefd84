// A reader in a process of its own, for test/log/kill-points.spec.ts: follows a response from Redis with
// fromEventLog and `upstream` (argv: Redis URL, baseURL, response id, owner, lease ms), so that it takes the
// stream over when its producer's lease lapses. Prints `ev <sequence_number>` per event delivered, then `done`
// or `error <name>`, and exits. The test kills it with SIGKILL while it continues the stream.
import { lastValueFrom, tap } from 'rxjs';
import { fromEventLog } from '../../lib/log/from-event-log';
import { runChildScript } from './takeover-helpers';

const [url, baseURL, responseId, owner, leaseMs] = process.argv.slice(2) as [string, string, string, string, string];

runChildScript(
  url,
  async (log) => {
    await lastValueFrom(
      fromEventLog(log, responseId, { owner, upstream: { baseURL, apiKey: 'sk-test' }, leaseMs: Number(leaseMs), notFoundTimeoutMs: 60_000, pollMs: 200 }).pipe(
        tap((e) => process.stdout.write(`ev ${String(e.sequence_number)}\n`)),
      ),
    );
  },
  (e) => (e as { name?: string }).name ?? 'unknown',
);
