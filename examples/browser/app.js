// The page: a response streamed with fetch and bound to the page with outputText / accumulateText,
// then three lanes over one of the browser's own WebSockets with laneMux.
// Query parameters: `api` (base URL, default this origin + /v1), `ws` (the WebSocket URL), `model`.
import { accumulateText, connectResponsesSocket, isLaneError, laneMux, outputText, streamResponse } from 'openai-rx';
import { from, lastValueFrom, share, tap } from 'rxjs';

const params = new URLSearchParams(location.search);
const baseURL = params.get('api') ?? `${location.origin}/v1`;
const model = params.get('model') ?? 'gpt-5.4-nano';
const $ = (id) => document.getElementById(id);
const status = (text) => ($('status').textContent = text);

async function sse() {
  const answer = $('answer');
  let renders = 0;
  // No API key in a browser: the page talks to your own backend (or, here, the loopback server), which holds it.
  const events$ = streamResponse({ model, input: 'Why reactive streams?' }, { baseURL }).pipe(share());
  const text$ = events$.pipe(
    outputText(),
    tap((text) => {
      answer.textContent = text;
      answer.dataset.renders = String(++renders);
    }),
  );
  const parts$ = events$.pipe(
    accumulateText(),
    tap((s) => ($('parts').textContent = s.done ? `part ${s.outputIndex}.${s.contentIndex} done: ${s.text.length} characters` : `streaming part ${s.outputIndex}.${s.contentIndex}…`)),
  );
  await Promise.all([lastValueFrom(text$, { defaultValue: '' }), lastValueFrom(parts$, { defaultValue: undefined })]);
}

async function lanes() {
  const url = params.get('ws');
  if (!url) return;
  const lanes = ['summary', 'translate', 'title'];
  const box = $('lanes');
  const spans = {};
  for (const lane of lanes) {
    const row = document.createElement('p');
    row.className = 'lane';
    row.id = `lane-${lane}`;
    row.innerHTML = `<b>${lane}</b> <span></span>`;
    box.append(row);
    spans[lane] = row.querySelector('span');
  }
  const socket = connectResponsesSocket({ url });
  try {
    const requests = lanes.map((lane) => ({ type: 'response.create', stream_id: lane, model, input: `lane ${lane}`, store: false }));
    await lastValueFrom(
      from(requests).pipe(
        laneMux(socket),
        tap((e) => {
          if (isLaneError(e)) throw e;
          if (e.type === 'response.output_text.delta') spans[e.stream_id].textContent += e.delta;
        }),
      ),
      { defaultValue: undefined },
    );
  } finally {
    socket.close();
  }
}

status('streaming…');
sse()
  .then(lanes)
  .then(
    () => status('done'),
    (e) => status(`error: ${e && e.message ? e.message : String(e)}`),
  );
