// Recipe: a structured output that fills in a card and a table while the model writes it.
// `jsonSchemaFormat(codec)` asks for JSON of the codec's shape (the request's `text.format`, strict);
// `outputObject(codec)` gives the value parsed so far each time it grows, then the value the codec decoded.
import * as t from 'io-ts';
import { lastValueFrom, tap } from 'rxjs';
import { jsonSchemaFormat, outputObject, streamResponse, withDescription, type ClientConfig, type PartialValue } from '../index.js';

export const Forecast = t.type({
  city: withDescription(t.string, 'The city, as the user named it'),
  summary: withDescription(t.string, 'One line for the whole period'),
  days: t.array(t.type({ day: t.string, high: t.number, low: t.number, conditions: t.keyof({ sunny: null, cloudy: null, rain: null }) })),
  // Strict mode makes every property required: "no alert" is written `null`.
  alert: t.union([t.string, t.null]),
});
export type Forecast = t.TypeOf<typeof Forecast>;

/** Anything with a text property: a DOM node, a view model, a test double. */
export interface TextBinding {
  textContent: string | null;
}

export interface StructuredOutputOptions extends ClientConfig {
  readonly model?: string;
  readonly prompt?: string;
  /** Where the card goes (default: a plain object). */
  readonly card?: TextBinding;
}

/**
 * The card as text: the heading, the summary, a table row per day begun (`…` where a value is still coming). A
 * partial value holds a property once its value has begun, a string as far as it has been written.
 */
export function renderCard(f: PartialValue<Forecast>): string {
  const cell = (v: string | number | undefined) => (v === undefined ? '…' : String(v));
  const rows = (f.days ?? []).map((d) => `| ${cell(d.day)} | ${cell(d.low)}–${cell(d.high)} °C | ${cell(d.conditions)} |`);
  return [`# ${cell(f.city)}`, cell(f.summary), '| day | °C | sky |', ...rows, ...(f.alert ? [`⚠ ${f.alert}`] : [])].join('\n');
}

export async function main(options: StructuredOutputOptions = {}) {
  const card = options.card ?? { textContent: '' };
  const renders: string[] = [];
  const format = jsonSchemaFormat(Forecast, { name: 'forecast', description: 'A weather forecast card' });
  const request = { model: options.model ?? 'gpt-5.4-mini', input: options.prompt ?? 'The weather in Paris for the next three days', text: { format } };
  const last = await lastValueFrom(
    streamResponse(request, options).pipe(
      outputObject(Forecast),
      tap((f) => {
        card.textContent = renderCard(f);
        renders.push(card.textContent);
      }),
    ),
  );
  // The last emission is the value the codec decoded (a response that ends before the JSON does is an error).
  const forecast = last as Forecast;
  return { forecast, renders, card: card.textContent, format };
}
