import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const FIXTURES_DIR = join(__dirname, '..', 'fixtures');

/** A recorded transcript's raw SSE text. */
export function fixture(name: string): string {
  return readFileSync(join(FIXTURES_DIR, name.endsWith('.sse') ? name : `${name}.sse`), 'utf8');
}

/** Every Responses transcript (`*.sse` not starting with `chat-`). */
export function responsesFixtures(): string[] {
  return readdirSync(FIXTURES_DIR).filter((f) => f.endsWith('.sse') && !f.startsWith('chat-'));
}

/** The JSON payloads of a transcript, in order (for expectations built independently of the decoder). */
export function payloads(sse: string): Array<Record<string, unknown>> {
  return sse
    .split(/\r?\n/)
    .filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

/** A recorded Responses transcript: its SSE text, its payloads, its response's id and its number of events. */
export function recording(name: string): { sse: string; recorded: Array<Record<string, unknown>>; responseId: string; N: number } {
  const sse = fixture(name);
  const recorded = payloads(sse);
  return { sse, recorded, responseId: (recorded[0]!['response'] as { id: string }).id, N: recorded.length };
}
