// The output item each kind of call gets back: client tools (shell, apply_patch, computer, local_shell), MCP
// approvals, and the results a function tool may not send.
import * as t from 'io-ts';
import { lastValueFrom, map, of, throwError, timer, toArray } from 'rxjs';
import { InvalidOptionError } from '../../lib/errors';
import { ClientToolError, defineTool, runAgent, type AgentStreamEvent, type RunAgentOptions, type TurnTransport } from '../../agent/index';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import type { ResponseCreateParams } from '../../lib/http/transports';

const turn = (id: string, output: unknown[]) =>
  [{ type: 'response.created', response: { id, status: 'in_progress', output: [] } }, { type: 'response.completed', response: { id, status: 'completed', output } }] as unknown as ResponseStreamEvent[];

/** Turn 1 asks for `items`; turn 2 answers. Returns what turn 2 was sent and every event. */
async function answersTo(items: unknown[], options: RunAgentOptions): Promise<{ input: unknown; events: AgentStreamEvent[] }> {
  const requests: ResponseCreateParams[] = [];
  const transport: TurnTransport = (body, { turn: n }) => (requests.push(body), of(...(n === 1 ? turn('resp_1', items) : turn('resp_2', []))));
  const events = await lastValueFrom(runAgent({ model: 'm', input: 'x' }, { ...options, transport }).pipe(toArray()));
  return { input: requests[1]?.['input'], events };
}

test('computer: a screenshot becomes computer_call_output, safety checks acknowledged', async () => {
  const call = { id: 'cu_1', type: 'computer_call', call_id: 'cc', status: 'completed', action: { type: 'click', x: 1, y: 2 }, pending_safety_checks: [{ id: 'sc_1', code: 'malicious_instructions' }] };
  const r = await answersTo([call], { handlers: { computer: (item) => ({ image_url: 'data:image/png;base64,AAA', acknowledged_safety_checks: (item as unknown as { pending_safety_checks: Array<{ id: string }> }).pending_safety_checks }) } });
  expect(r.input).toEqual([{ type: 'computer_call_output', call_id: 'cc', output: { type: 'computer_screenshot', image_url: 'data:image/png;base64,AAA' }, acknowledged_safety_checks: [{ id: 'sc_1', code: 'malicious_instructions' }] }]);
});

test('computer: a failing handler ends the run with ClientToolError (the output cannot say "failed")', async () => {
  const call = { id: 'cu_1', type: 'computer_call', call_id: 'cc', status: 'completed', action: { type: 'screenshot' } };
  await expect(answersTo([call], { handlers: { computer: () => throwError(() => new Error('no display')) } })).rejects.toBeInstanceOf(ClientToolError);
  await expect(answersTo([call], {})).rejects.toThrow(/computer_call cc could not be answered \(unknown_tool\)/);
});

test('local_shell: local_shell_call_output with the call id as id, the result as JSON; apply_patch and shell shapes', async () => {
  const local = { id: 'ls_1', type: 'local_shell_call', call_id: 'cl', status: 'completed', action: { type: 'exec', command: ['ls'], env: {} } };
  const patch = { id: 'ap_1', type: 'apply_patch_call', call_id: 'cp', status: 'completed', operation: { type: 'create_file', path: 'a.txt', diff: '+a' } };
  const shell = { id: 'sh_1', type: 'shell_call', call_id: 'cs', status: 'completed', action: { commands: ['sleep 9'] } };
  const r = await answersTo([local, patch, shell], {
    toolTimeoutMs: 20,
    handlers: {
      local_shell: () => Promise.resolve({ stdout: 'a.txt\n', exit_code: 0 }),
      apply_patch: (item) => ({ status: 'completed', output: `created ${String((item.operation as { path: string }).path)}` }),
      shell: (_item, { signal }) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('killed')))),
    },
  });
  expect(r.input).toEqual([
    { type: 'local_shell_call_output', id: 'cl', output: '{"stdout":"a.txt\\n","exit_code":0}' },
    { type: 'apply_patch_call_output', call_id: 'cp', status: 'completed', output: 'created a.txt' },
    { type: 'shell_call_output', call_id: 'cs', output: [{ stdout: '', stderr: 'Error: shell_call did not answer within 20 ms', outcome: { type: 'timeout' } }] },
  ]);
});

test('MCP approval granted: mcp_approval_response approve: true; approve sees the request', async () => {
  const mcp = { id: 'mcpr_1', type: 'mcp_approval_request', server_label: 'wiki', name: 'search', arguments: '{"q":"rx"}' };
  const seen: unknown[] = [];
  const r = await answersTo([mcp], { approve: (call) => (seen.push(call), Promise.resolve(true)) });
  expect(seen).toEqual([expect.objectContaining({ type: 'mcp_approval_request', call_id: 'mcpr_1', name: 'search', arguments: '{"q":"rx"}' })]);
  expect(r.input).toEqual([{ type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true }]);
});

test('results a tool may not send: undefined, a BigInt, a circular value, one its result codec refuses', async () => {
  const circular: Record<string, unknown> = {};
  circular['self'] = circular;
  const values: Record<string, unknown> = { a: undefined, b: 10n, c: circular, d: { n: 'x' } };
  const tool = defineTool({ parameters: t.type({ k: t.string }), result: t.union([t.type({ n: t.number }), t.undefined, t.bigint, t.UnknownRecord]) as t.Type<unknown>, execute: ({ k }) => values[k] });
  const strictResult = defineTool({ parameters: t.type({}), result: t.type({ n: t.number }), execute: () => ({ n: 'x' }) as unknown as { n: number } });
  const fc = (callId: string, name: string, args: unknown) => ({ id: `fc_${callId}`, type: 'function_call', call_id: callId, name, arguments: JSON.stringify(args), status: 'completed' });
  const r = await answersTo([fc('a', 'v', { k: 'a' }), fc('b', 'v', { k: 'b' }), fc('c', 'v', { k: 'c' }), fc('d', 'n', {})], { tools: { v: tool, n: strictResult } });
  const outputs = (r.input as Array<{ output: string }>).map((o) => o.output);
  expect(outputs[0]).toBe('Error: the tool returned no value');
  expect(outputs[1]).toMatch(/^Error: the result cannot be sent as JSON/);
  expect(outputs[2]).toMatch(/^Error: the result cannot be sent as JSON/);
  expect(outputs[3]).toBe('Error: the result does not match { n: number }');
  expect(r.events.filter((e) => e.type === 'agent.tool_call.failed').map((e) => (e as { reason: string }).reason)).toEqual(['invalid_result', 'invalid_result', 'invalid_result', 'invalid_result']);
});

test('execute may return a value, a Promise or an Observable (its last value); strings go as they are, anything else as JSON', async () => {
  const names = ['value', 'promise', 'observable', 'number', 'boolean', 'null', 'array'];
  const fc = (callId: string, name: string) => ({ id: `fc_${callId}`, type: 'function_call', call_id: callId, name, arguments: '{}', status: 'completed' });
  const p = t.type({});
  const tools = {
    value: defineTool({ parameters: p, execute: () => 'plain "text"' }),
    promise: defineTool({ parameters: p, execute: () => Promise.resolve({ from: 'promise' }) }),
    observable: defineTool({ parameters: p, execute: () => of<unknown[]>('first', 'second', { last: true }) }),
    number: defineTool({ parameters: p, execute: () => 42 }),
    boolean: defineTool({ parameters: p, execute: async () => false }),
    null: defineTool({ parameters: p, execute: () => null }),
    array: defineTool({ parameters: p, execute: () => timer(5).pipe(map(() => [1, 'two'])) }),
  };
  const r = await answersTo(names.map((n, i) => fc(`c${i}`, n)), { tools });
  expect((r.input as Array<{ call_id: string; output: string }>).map((o) => [o.call_id, o.output])).toEqual([
    ['c0', 'plain "text"'], ['c1', '{"from":"promise"}'], ['c2', '{"last":true}'], ['c3', '42'], ['c4', 'false'], ['c5', 'null'], ['c6', '[1,"two"]'],
  ]);
});

test('a tool name the API would refuse (not 1-64 of a-z A-Z 0-9 _ -) or used twice is an InvalidOptionError before any request', async () => {
  const tool = defineTool({ parameters: t.type({}), execute: () => 'x' });
  let sent = 0;
  const transport: TurnTransport = () => (sent++, of(...turn('resp_1', [])));
  const cases: Array<RunAgentOptions['tools']> = [{ 'get weather': tool }, { ['x'.repeat(65)]: tool }, [defineTool({ name: 'a.b', parameters: t.type({}), execute: () => 'x' })], { a: tool, b: defineTool({ name: 'a', parameters: t.type({}), execute: () => 'x' }) }];
  for (const tools of cases) {
    const err = await lastValueFrom(runAgent({ model: 'm', input: 'x' }, { tools, transport })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidOptionError);
    expect(err).toMatchObject({ option: 'tools' });
  }
  expect(sent).toBe(0);
  await expect(lastValueFrom(runAgent({ model: 'm', input: 'x' }, { tools: { 'get_weather-2': tool }, transport }))).resolves.toMatchObject({ type: 'agent.run.finished' });
});
