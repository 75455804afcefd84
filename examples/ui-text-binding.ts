// Recipe: stream a response's text into a UI binding as it arrives.
// `outputText()` gives the whole answer so far (bind it to a text node); `accumulateText()` gives each
// part with its delta (append it, or show a typing cursor until `done`).
import { lastValueFrom, share, tap } from 'rxjs';
import { accumulateText, outputText, streamResponse, type ClientConfig } from '../index.js';

/** Anything with a text property: a DOM node, a view model, a test double. */
export interface TextBinding {
  textContent: string | null;
}

export interface UIOptions extends ClientConfig {
  readonly model?: string;
  readonly prompt?: string;
  /** Where the answer goes (default: a plain object). */
  readonly answer?: TextBinding;
  /** Where the status goes: "streaming…" while deltas arrive, "done" after. */
  readonly status?: TextBinding;
}

export async function main(options: UIOptions = {}) {
  const answer = options.answer ?? { textContent: '' };
  const status = options.status ?? { textContent: '' };
  const renders: string[] = [];
  // One request, two views of it: share() so both subscribe to the same stream.
  const events$ = streamResponse({ model: options.model ?? 'gpt-5.4-nano', input: options.prompt ?? 'Why reactive streams?' }, options).pipe(share());
  const parts$ = events$.pipe(
    accumulateText(),
    tap((s) => (status.textContent = s.done ? 'done' : `streaming… (${s.text.length} characters)`)),
  );
  const text$ = events$.pipe(
    outputText(),
    tap((text) => {
      answer.textContent = text;
      renders.push(text);
    }),
  );
  const [text] = await Promise.all([lastValueFrom(text$, { defaultValue: '' }), lastValueFrom(parts$, { defaultValue: undefined })]);
  return { text, renders, answer: answer.textContent, status: status.textContent };
}
