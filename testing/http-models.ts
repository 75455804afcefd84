// The test server's `GET /v1/models` and `GET /v1/models/{id}`: the models its transcripts answer to.
import type { Loaded } from './http-server-types.js';

/** One entry of the API's model list. */
export interface ListedModel {
  readonly id: string;
  readonly object: 'model';
  readonly created: number;
  readonly owned_by: string;
}

/** The model a recorded event names (a Responses event's `response.model`, a chat chunk's `model`). */
function recordedModel(payload: Record<string, unknown> | undefined): string | undefined {
  const response = payload?.['response'];
  const model = typeof response === 'object' && response !== null ? (response as { model?: unknown }).model : payload?.['model'];
  return typeof model === 'string' && model !== '' ? model : undefined;
}

/**
 * The models a client can name: each transcript's name first (a request picks a transcript by `"model": NAME`),
 * then the models the transcripts were recorded with (a request naming one of those gets the default transcript).
 */
export function modelsOf(transcripts: Iterable<Loaded>, created: number): ListedModel[] {
  const ids = new Set<string>();
  const recorded = new Set<string>();
  for (const t of transcripts) {
    ids.add(t.name);
    for (const e of t.parsed.events) {
      const m = recordedModel(e.payload);
      if (m !== undefined) recorded.add(m);
    }
  }
  for (const m of recorded) ids.add(m);
  return [...ids].map((id) => ({ id, object: 'model', created, owned_by: 'openai-rx' }));
}
