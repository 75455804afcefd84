import { parseTranscript } from './transcripts.js';

/**
 * The event payloads of a Responses SSE transcript, its response id (that of the first event carrying one)
 * replaced everywhere by `id`, so a recording can answer any request as a response of its own. Events without
 * a JSON payload (a malformed one kept on purpose, `[DONE]`) are left out.
 */
export function transcriptEvents(sse: string, id: string): Array<Record<string, unknown>> {
  const t = parseTranscript(sse);
  const old = t.responseId;
  return t.events.flatMap((e) => {
    if (!e.payload) return [];
    const text = JSON.stringify(e.payload);
    return [JSON.parse(old ? text.split(old).join(id) : text) as Record<string, unknown>];
  });
}
