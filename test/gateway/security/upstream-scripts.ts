// Answers the recording upstream gives where the fake provider has none: conversations and their items, a
// response's delete and input items, input token counts and compaction, and a few organisation-wide resources
// (files, vector stores) for the pass-through tests. What it answers only matters for the owner's own requests:
// the attacks are judged by what reaches the upstream at all.
import type { RecordedRequest, ScriptedAnswer } from './harness';

const ok = (value: unknown): ScriptedAnswer => ({ status: 200, body: JSON.stringify(value) });
const notFound = (what: string): ScriptedAnswer => ({ status: 404, body: JSON.stringify({ error: { message: `${what} not found.`, type: 'invalid_request_error', param: null, code: null } }) });

/** A script for {@link startRecordingUpstream}; `conversations` holds the ids it created. */
export function organisationScript(): { script: (req: RecordedRequest) => ScriptedAnswer | undefined; conversations: Set<string> } {
  const conversations = new Set<string>();
  let n = 0;
  const script = (req: RecordedRequest): ScriptedAnswer | undefined => {
    const path = req.url.split('?')[0]!;
    const m = req.method;
    if (m === 'POST' && path === '/v1/conversations') {
      const id = `conv_up${++n}`;
      conversations.add(id);
      return ok({ id, object: 'conversation', created_at: 0, metadata: {} });
    }
    const conv = /^\/v1\/conversations\/([^/]+)(\/items(?:\/([^/]+))?)?$/.exec(path);
    if (conv) {
      const id = decodeURIComponent(conv[1]!);
      if (!conversations.has(id)) return notFound(`Conversation with id '${id}'`);
      if (conv[3]) return m === 'DELETE' ? ok({ id, object: 'conversation' }) : ok({ id: conv[3], object: 'conversation.item', type: 'message' });
      if (conv[2]) return ok({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
      if (m === 'DELETE') return ok({ id, object: 'conversation.deleted', deleted: true });
      return ok({ id, object: 'conversation', created_at: 0, metadata: {} });
    }
    // A non-streamed create the test marks: answered as a response that belongs to a conversation it made.
    if (m === 'POST' && path === '/v1/responses' && req.body.includes('"answer-with-conversation"')) {
      const conversation = `conv_made${++n}`;
      conversations.add(conversation);
      return ok({ id: `resp_made${n}`, object: 'response', status: 'completed', output: [], conversation: { id: conversation } });
    }
    if (m === 'POST' && path === '/v1/responses/input_tokens') return ok({ object: 'response.input_tokens', input_tokens: 3 });
    if (m === 'POST' && path === '/v1/responses/compact') return ok({ id: `cmp_${++n}`, object: 'response.compaction', output: [] });
    const resp = /^\/v1\/responses\/([^/]+)\/input_items$/.exec(path);
    if (resp) return ok({ object: 'list', data: [], first_id: null, last_id: null, has_more: false });
    if (m === 'DELETE' && /^\/v1\/responses\/[^/]+$/.test(path)) return ok({ id: path.split('/').pop(), object: 'response.deleted', deleted: true });
    if (/^\/v1\/(files|vector_stores|batches)(\/|$)/.test(path)) return ok({ object: 'list', data: [{ id: 'file-of-the-organisation' }] });
    return undefined;
  };
  return { script, conversations };
}
