// The page: starts a response through an openai-rx gateway (POST /v1/responses, stream: true, with the
// library's streamResponse), takes its id from the first event and lets that request go (the gateway keeps
// recording it), then follows the response with the browser's own EventSource on
// GET /v1/responses/{id}?stream=true. Every event the gateway sends carries `id: <sequence_number>`: when the
// connection drops, EventSource reconnects by itself with a `Last-Event-ID` header, and the gateway resumes
// after that event from its log. The answer is rendered with outputText().
//
// Auth: EventSource cannot set headers (no `Authorization`), so the gateway in front of this page identifies
// the user by a same-origin session cookie, which both fetch and EventSource send (the gateway's `authorize`
// option). No API key ever reaches the browser: the gateway holds the upstream key.
//
// Query parameters: `api` (base URL, default this origin + /v1), `model`, `input`.
import { outputText, RESPONSE_STREAM_EVENT_TYPES, streamResponse } from 'openai-rx';
import { firstValueFrom, lastValueFrom, Observable, tap } from 'rxjs';

const params = new URLSearchParams(location.search);
const baseURL = params.get('api') ?? `${location.origin}/v1`;
const model = params.get('model') ?? 'gpt-5.4-nano';
const input = params.get('input') ?? 'Why reactive streams?';
const $ = (id) => document.getElementById(id);
const status = (text) => ($('status').textContent = text);
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

// Everything the page saw, unfiltered (a duplicate or a gap after a reconnect shows here).
// `deltas`: the text deltas as received, joined; `rewrites`: renders that did not just extend the text shown
// (outputText corrects the text at `.done`, so the final text alone would hide a repeated delta).
const trace = { responseId: null, events: [], connections: [], errors: [], deltas: '', rewrites: 0 };
const publish = () => ($('trace').textContent = JSON.stringify(trace));

/** The response's id: the first event of a streamed create. Unsubscribing then aborts the POST. */
async function startResponse() {
  const created = await firstValueFrom(streamResponse({ model, input }, { baseURL }));
  const id = created.response?.id;
  if (typeof id !== 'string') throw new Error(`the first event (${created.type}) carries no response id`);
  return id;
}

/**
 * A response's events from an EventSource. Named SSE events (`event: response.output_text.delta`) reach only
 * listeners for their type, so there is one per Responses event type. The stream ends at its terminal event:
 * closed there, or EventSource would reconnect when the server ends the response.
 */
function followWithEventSource(url) {
  return new Observable((subscriber) => {
    const source = new EventSource(url); // same origin: the session cookie goes with every (re)connection
    const current = () => trace.connections[trace.connections.length - 1];
    const onMessage = (m) => {
      let event;
      try {
        event = JSON.parse(m.data);
      } catch {
        subscriber.error(new Error(`a ${m.type} event whose data is not JSON`));
        return;
      }
      trace.events.push({ type: event.type, sequence_number: event.sequence_number, lastEventId: m.lastEventId, connection: trace.connections.length });
      const c = current();
      if (c) {
        c.events++;
        c.lastEventId = m.lastEventId;
        if (event.type === 'response.output_text.delta') c.deltas++;
      }
      if (event.type === 'response.output_text.delta') trace.deltas += event.delta;
      subscriber.next(event);
      if (TERMINAL.has(event.type)) {
        source.close();
        if (event.type === 'error') subscriber.error(new Error(`the stream failed: ${event.message ?? event.code ?? 'error'}`));
        else subscriber.complete();
      }
    };
    for (const type of RESPONSE_STREAM_EVENT_TYPES) if (type !== 'error') source.addEventListener(type, onMessage);
    source.addEventListener('open', () => {
      trace.connections.push({ events: 0, deltas: 0, lastEventId: null });
      $('connections').textContent = `connection ${trace.connections.length}`;
    });
    source.addEventListener('error', (e) => {
      // The gateway's in-band `event: error` (a MessageEvent with data), or the connection's own error event.
      if (e instanceof MessageEvent && typeof e.data === 'string' && e.data !== '') return onMessage(e);
      trace.errors.push({ readyState: source.readyState, afterEvents: trace.events.length });
      publish();
      // CONNECTING: it reconnects on its own (with Last-Event-ID). CLOSED: it gave up (an HTTP error answer).
      if (source.readyState === EventSource.CLOSED) subscriber.error(new Error('EventSource gave up: the gateway refused the stream'));
      else $('connections').textContent = `connection ${trace.connections.length} dropped: reconnecting after event ${current()?.lastEventId ?? 'none'}…`;
    });
    return () => source.close();
  });
}

async function main() {
  const answer = $('answer');
  let renders = 0;
  const id = await startResponse();
  trace.responseId = id;
  status(`following ${id}…`);
  await lastValueFrom(
    followWithEventSource(`${baseURL}/responses/${encodeURIComponent(id)}?stream=true`).pipe(
      outputText(),
      tap((text) => {
        if (!text.startsWith(answer.textContent)) trace.rewrites++;
        answer.textContent = text;
        answer.dataset.renders = String(++renders);
        publish();
      }),
    ),
    { defaultValue: '' },
  );
}

status('starting…');
main()
  .then(
    () => status('done'),
    (e) => status(`error: ${e && e.message ? e.message : String(e)}`),
  )
  .finally(publish);
