// The protocol authors' conformance suite against one server, its URL in CONFORMANCE_BASE_URL. Run by
// scripts/conformance.mjs (one vitest process per server), never by jest (not a *.spec.ts).
import { runConformanceTests } from '@durable-streams/server-conformance-tests';

const baseUrl = process.env.CONFORMANCE_BASE_URL;
if (!baseUrl) throw new Error('CONFORMANCE_BASE_URL is not set (run it with `npm run test:conformance`)');
// The servers' long-poll timeout (scripts/conformance.mjs sets both), which the suite's long-poll tests wait for.
const longPollTimeoutMs = Number(process.env.CONFORMANCE_LONG_POLL_MS ?? 20_000);
runConformanceTests({ baseUrl, longPollTimeoutMs });
