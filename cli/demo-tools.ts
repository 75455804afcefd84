// The demo's tools: their definitions for the model, and the local functions that answer them.

/** The demo's tool definitions, as sent to the model. */
export const TOOLS = [
  { type: 'function', name: 'get_weather', description: 'Current weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city', 'unit'], additionalProperties: false }, strict: true },
  { type: 'function', name: 'get_time', description: 'Current local time in a timezone', parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'], additionalProperties: false }, strict: true },
];

/** The demo's local tools. */
export function runTool(name: string, args: unknown): string {
  if (name === 'get_weather') return JSON.stringify({ city: (args as { city?: string }).city ?? '?', temperature: 18, unit: 'celsius', sky: 'clear' });
  if (name === 'get_time') return JSON.stringify({ timezone: (args as { timezone?: string }).timezone ?? '?', time: '14:05' });
  return JSON.stringify({ error: `unknown tool ${name}` });
}
