// A GET's query (sections 5.6-5.8): `offset` at most once and never empty, `live` one of the two modes, `cursor`
// echoed from the last response. Offsets the protocol forbids (`,` `&` `=` `?` `/`, spaces) are refused here;
// any other text this server never minted is the store's 400.

import { START_OFFSET } from './offsets.js';

export type LiveMode = 'long-poll' | 'sse';

export type ReadQuery =
  | { readonly ok: true; readonly offset: string; readonly live?: LiveMode; readonly cursor?: string }
  | { readonly ok: false; readonly reason: string };

const FORBIDDEN = /[,&=?/\s]/;

export function parseReadQuery(search: URLSearchParams): ReadQuery {
  const offsets = search.getAll('offset');
  const lives = search.getAll('live');
  if (offsets.length > 1) return { ok: false, reason: 'offset given more than once' };
  if (lives.length > 1) return { ok: false, reason: 'live given more than once' };
  const offset = offsets[0];
  const live = lives[0];
  if (offset === '') return { ok: false, reason: 'offset is empty' };
  if (offset !== undefined && FORBIDDEN.test(offset)) return { ok: false, reason: 'malformed offset' };
  if (live !== undefined && live !== 'long-poll' && live !== 'sse') return { ok: false, reason: 'live must be long-poll or sse' };
  if (live !== undefined && offset === undefined) return { ok: false, reason: `live=${live} needs an offset` };
  const cursor = search.get('cursor') ?? undefined;
  return {
    ok: true,
    offset: offset ?? START_OFFSET,
    ...(live !== undefined && { live }),
    ...(cursor !== undefined && { cursor }),
  };
}
