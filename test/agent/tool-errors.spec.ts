// What the model is told when a call fails: one clear message, never a stack (not even one folded into an
// error's message), never a key (the config's, or any `sk-…` / `Bearer …` shape), and the loop goes on.
import * as t from 'io-ts';
import { lastValueFrom, of, toArray } from 'rxjs';
import { defineTool, runAgent, type AgentStreamEvent, type RunAgentOptions, type TurnTransport } from '../../agent/index';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import type { ResponseCreateParams } from '../../lib/http/transports';

const KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
const AZURE_KEY = '0123456789abcdef0123456789abcdef';
const turn = (id: string, output: unknown[]) =>
  [{ type: 'response.created', response: { id, status: 'in_progress', output: [] } }, { type: 'response.completed', response: { id, status: 'completed', output } }] as unknown as ResponseStreamEvent[];
const fc = (callId: string, name: string, args: unknown = {}) => ({ id: `fc_${callId}`, type: 'function_call', call_id: callId, name, arguments: JSON.stringify(args), status: 'completed' });

/** Turn 1 calls each of `calls`; turn 2 answers. What turn 2 was sent, and the failure events. */
async function outputsFor(calls: unknown[], options: RunAgentOptions): Promise<{ outputs: string[]; failed: AgentStreamEvent[]; requests: ResponseCreateParams[] }> {
  const requests: ResponseCreateParams[] = [];
  const transport: TurnTransport = (body, { turn: n }) => (requests.push(body), of(...(n === 1 ? turn('resp_1', calls) : turn('resp_2', []))));
  const events = await lastValueFrom(runAgent({ model: 'm', input: 'x' }, { ...options, transport }).pipe(toArray()));
  const outputs = (requests[1]?.['input'] as Array<{ output: string }>).map((o) => o.output);
  return { outputs, failed: events.filter((e) => e.type === 'agent.tool_call.failed'), requests };
}

const noStack = (s: string) => {
  expect(s).not.toMatch(/^\s+at /m);
  expect(s).not.toContain(__filename);
  expect(s).not.toContain('node_modules');
};

test('an Error with a key in its message and a stack: the model sees the message with the key masked, no stack', async () => {
  const error = new Error(`upstream refused key ${KEY}`);
  expect(error.stack).toContain(__filename);
  const r = await outputsFor([fc('a', 'boom')], { tools: { boom: defineTool({ parameters: t.type({}), execute: () => { throw error; } }) } });
  expect(r.outputs).toEqual(['Error: boom failed: upstream refused key [redacted]']);
  expect(r.failed).toEqual([expect.objectContaining({ reason: 'tool_error', message: 'boom failed: upstream refused key [redacted]' })]);
  expect(r.requests[1]).toHaveProperty('previous_response_id', 'resp_1'); // the loop went on
});

test('a stack folded into the message (a wrapped error) is cut off; the first line stays', async () => {
  const inner = new Error(`connect refused with ${KEY}`);
  const tools = {
    wraps: defineTool({ parameters: t.type({}), execute: () => Promise.reject(new Error(`lookup failed: ${String(inner.stack)}`)) }),
    multi: defineTool({ parameters: t.type({}), execute: () => { throw new Error('line one\nline two\n    at Object.<anonymous> (/srv/app/tool.js:3:9)\n    at node:internal/main:1:1'); } }),
  };
  const r = await outputsFor([fc('a', 'wraps'), fc('b', 'multi')], { tools });
  r.outputs.forEach(noStack);
  r.failed.forEach((e) => noStack((e as { message: string }).message));
  expect(r.outputs).toEqual(['Error: wraps failed: lookup failed: Error: connect refused with [redacted]', 'Error: multi failed: line one\nline two']);
});

test('thrown non-Errors, empty messages, and the configured key in any shape', async () => {
  const tools = {
    str: defineTool({ parameters: t.type({}), execute: () => { throw `bad token Bearer ${AZURE_KEY}`; } }),
    empty: defineTool({ parameters: t.type({}), execute: () => { throw new TypeError(''); } }),
    azure: defineTool({ parameters: t.type({}), execute: () => { throw new Error(`key ${AZURE_KEY} rejected`); } }),
  };
  const r = await outputsFor([fc('a', 'str'), fc('b', 'empty'), fc('c', 'azure')], { tools, config: { baseURL: 'http://127.0.0.1:1/v1', apiKey: AZURE_KEY } });
  expect(r.outputs).toEqual(['Error: str failed: bad token Bearer [redacted]', 'Error: empty failed: TypeError', 'Error: azure failed: key [redacted] rejected']);
});

test('a checkArguments that throws or reports with a key in its message: masked too', async () => {
  const parameters = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'], additionalProperties: false };
  const throwing = defineTool({ parameters, checkArguments: (): boolean => { throw new Error(`schema store ${KEY} unreachable\n    at validate (/srv/v.js:1:1)`); }, execute: () => 'never' });
  const ajv = Object.assign(() => false, { errors: [{ instancePath: '/q', message: `must not be ${KEY}` }] });
  const reporting = defineTool({ parameters, checkArguments: ajv, execute: () => 'never' });
  const r = await outputsFor([fc('a', 'v1', { q: 'x' }), fc('b', 'v2', { q: 'x' })], { tools: { v1: throwing, v2: reporting } });
  r.outputs.forEach(noStack);
  expect(r.outputs).toEqual([
    'Error: the arguments of v1 are invalid: checkArguments threw: schema store [redacted] unreachable',
    'Error: the arguments of v2 are invalid: /q must not be [redacted]',
  ]);
});

test('empty arguments ("", as some providers send for a tool without parameters) are {}; other non-JSON is invalid_arguments', async () => {
  const noArgs = defineTool({ parameters: t.type({}), execute: () => 'ran' });
  const needsCity = defineTool({ parameters: t.type({ city: t.string }), execute: () => 'never' });
  const raw = (callId: string, name: string, args: string) => ({ id: `fc_${callId}`, type: 'function_call', call_id: callId, name, arguments: args, status: 'completed' });
  const r = await outputsFor([raw('a', 'now', ''), raw('b', 'now', '  '), raw('c', 'weather', ''), raw('d', 'now', '{')], { tools: { now: noArgs, weather: needsCity } });
  expect(r.outputs).toEqual(['ran', 'ran', 'Error: the arguments of weather are invalid: city: expected string, got nothing', 'Error: the arguments of now are not valid JSON']);
});
