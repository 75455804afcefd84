// The transcripts the chat bridge is checked against: recorded fixtures when present, built ones always.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ResponseStreamEvent } from '../../lib/events/responses.js';
import { FIXTURES_DIR, fixture } from '../helpers/fixtures.js';
import { sseOf, transcript, USAGE } from './build.js';

export const BUILT: Record<string, ResponseStreamEvent[]> = {
  'built-text': transcript({ text: ['Hel', 'lo', ', world'], usage: USAGE }),
  'built-reasoning-summary': transcript({ reasoning: { kind: 'summary', parts: [['Think', 'ing'], ['More']] }, text: ['Done.'], usage: USAGE }),
  'built-reasoning-text': transcript({ reasoning: { kind: 'text', parts: [['raw ', 'thought']] }, text: ['OK'], usage: USAGE }),
  'built-one-call': transcript({ calls: [{ callId: 'call_1', name: 'get_weather', args: ['{"ci', 'ty":"Oslo"}'] }], usage: USAGE }),
  'built-parallel-calls': transcript({
    text: ['Checking.'],
    calls: [
      { callId: 'call_a', name: 'get_weather', args: ['{"city":', '"Paris"}'] },
      { callId: 'call_b', name: 'get_time', args: ['{"tz":"CET"}'] },
      { callId: 'call_c', name: 'noop', args: [] },
    ],
    usage: USAGE,
  }),
  'built-refusal': transcript({ refusal: ["I can't ", 'help with that.'], usage: USAGE }),
  'built-incomplete': transcript({ text: ['Once upon'], status: 'incomplete', reason: 'max_output_tokens', usage: USAGE }),
  'built-content-filter': transcript({ text: ['Sure'], calls: [{ callId: 'call_x', name: 'f', args: ['{}'] }], status: 'incomplete', reason: 'content_filter', usage: USAGE }),
};

/** Recorded Responses transcripts that end normally (completed or incomplete), when present. */
export const RECORDED = [
  'plain-text', 'function-calls', 'refusal', 'incomplete', 'reasoning-summary', 'reasoning-text', 'second-provider', 'web-search', 'long-text',
].filter((name) => existsSync(join(FIXTURES_DIR, `${name}.sse`)));

/** Every case name with its Responses SSE text. */
export function responsesCases(): Array<[string, string]> {
  return [...Object.entries(BUILT).map(([name, events]): [string, string] => [name, sseOf(events)]), ...RECORDED.map((name): [string, string] => [name, fixture(name)])];
}
