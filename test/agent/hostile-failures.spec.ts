// A tool may throw anything, and return anything: a value whose every property access throws, an Error whose
// `message` getter throws, a Symbol, null, an object whose `toString` throws; a result whose `toJSON` throws, that
// is circular or holds a BigInt. Each call still gets an error output the model can read, the loop goes on to the
// next turn, and what the model and `agent.tool_call.failed` are told is masked like every other failure: no key
// (the configured one, or any `sk-…` shape), no stack.
import * as t from 'io-ts';
import { lastValueFrom, of, throwError, toArray } from 'rxjs';
import { defineTool, runAgent, type AgentStreamEvent, type ClientToolHandlers, type RunAgentOptions, type Tool, type TurnTransport } from '../../agent/index';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import type { ResponseCreateParams } from '../../lib/http/transports';

const KEY = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
const CONFIGURED = '0123456789abcdef0123456789abcdef';
const turn = (id: string, output: unknown[]) =>
  [{ type: 'response.created', response: { id, status: 'in_progress', output: [] } }, { type: 'response.completed', response: { id, status: 'completed', output } }] as unknown as ResponseStreamEvent[];
const fc = (callId: string, name: string) => ({ id: `fc_${callId}`, type: 'function_call', call_id: callId, name, arguments: '{}', status: 'completed' });

/** Turn 1 calls each tool once; turn 2 answers. What turn 2 was sent, the failure events, and how the run ended. */
async function run(tools: Record<string, Tool<unknown, unknown>>, calls: unknown[] = Object.keys(tools).map((name, i) => fc(`c${i}`, name)), extra: RunAgentOptions = {}) {
  const requests: ResponseCreateParams[] = [];
  const transport: TurnTransport = (body, { turn: n }) => (requests.push(body), of(...(n === 1 ? turn('resp_1', calls) : turn('resp_2', []))));
  const events = await lastValueFrom(runAgent({ model: 'm', input: 'x' }, { tools, config: { baseURL: 'http://127.0.0.1:1/v1', apiKey: CONFIGURED }, ...extra, transport }).pipe(toArray()));
  const outputs = (requests[1]?.['input'] as Array<{ output: unknown }> | undefined)?.map((o) => o.output);
  return { outputs, failed: events.filter((e): e is Extract<AgentStreamEvent, { type: 'agent.tool_call.failed' }> => e.type === 'agent.tool_call.failed'), requests };
}

const hostileProxy = (): object =>
  new Proxy(
    {},
    Object.fromEntries(
      ['get', 'has', 'getPrototypeOf', 'ownKeys', 'getOwnPropertyDescriptor', 'apply', 'construct', 'defineProperty', 'set', 'deleteProperty', 'isExtensible', 'preventExtensions', 'setPrototypeOf'].map((trap) => [
        trap,
        () => {
          throw new Error(`trap ${trap} with ${KEY}`);
        },
      ]),
    ),
  );
const throwingMessage = (): Error => {
  const e = new Error('never read');
  Object.defineProperty(e, 'message', { get: () => { throw new Error(`getter ${KEY}`); } });
  return e;
};
const throwingMessageAndName = (): Error => {
  const e = throwingMessage();
  Object.defineProperty(e, 'name', { get: () => { throw new Error(`name ${KEY}`); } });
  return e;
};
const throwingToString = () => ({ toString: () => { throw new Error(`toString ${KEY}`); }, [Symbol.toPrimitive]: () => { throw new Error(`primitive ${KEY}`); } });

const thrown: Array<[string, () => unknown]> = [
  ['a Proxy whose every trap throws', hostileProxy],
  ['an Error whose message getter throws', throwingMessage],
  ['an Error whose message and name getters throw', throwingMessageAndName],
  ['a Symbol', () => Symbol(`sym ${KEY}`)],
  ['null', () => null],
  ['undefined', () => undefined],
  ['an object whose toString throws', throwingToString],
  ['an object whose message is an object with a throwing toString', () => ({ message: throwingToString() })],
  ['a function', () => () => KEY],
];

const secretFree = (r: { outputs?: unknown[]; failed: readonly unknown[] }) => {
  for (const s of [...(r.outputs ?? []).map(String), ...r.failed.map((e) => (e as { message: string }).message)]) {
    expect(s).not.toContain(KEY.slice(3, 20));
    expect(s).not.toContain(CONFIGURED.slice(0, 12));
    expect(s).not.toMatch(/^\s+at /m);
  }
};

describe.each([
  ['thrown synchronously', (v: () => unknown) => () => { throw v(); }],
  ['a rejected Promise', (v: () => unknown) => () => Promise.reject(v())],
  ['an erroring Observable', (v: () => unknown) => () => throwError(() => v())],
])('a tool that fails with a hostile value, %s', (_how, failWith) => {
  test.each(thrown)('%s: a tool_error output, and the loop goes on', async (_name, value) => {
    const tools = { hostile: defineTool({ parameters: t.type({}), execute: failWith(value) }), fine: defineTool({ parameters: t.type({}), execute: () => 'ok' }) };
    const r = await run(tools as Record<string, Tool<unknown, unknown>>);
    expect(r.requests).toHaveLength(2);
    expect(r.requests[1]).toHaveProperty('previous_response_id', 'resp_1');
    expect(r.outputs).toEqual([expect.stringMatching(/^Error: hostile failed: /), 'ok']);
    expect(r.failed).toEqual([expect.objectContaining({ reason: 'tool_error' })]);
    secretFree(r);
  });
});

test('a client tool handler that throws a hostile value: its error output, and the loop goes on', async () => {
  const handlers: ClientToolHandlers = { local_shell: () => { throw hostileProxy(); }, apply_patch: () => Promise.reject(throwingMessage()) };
  const calls = [
    { id: 'ls_1', type: 'local_shell_call', call_id: 'c1', action: { type: 'exec', command: ['ls'] }, status: 'completed' },
    { id: 'ap_1', type: 'apply_patch_call', call_id: 'c2', operation: { type: 'delete_file', path: 'x' }, status: 'completed' },
  ];
  const r = await run({}, calls, { handlers });
  expect(r.failed.map((e) => e.reason)).toEqual(['tool_error', 'tool_error']);
  expect(r.requests).toHaveLength(2);
  secretFree(r);
});

describe('a result that cannot be sent: masked like every other failure, and the loop goes on', () => {
  const circular = (): unknown => {
    const o: Record<string, unknown> = { note: KEY };
    o['self'] = o;
    return o;
  };
  const results: Array<[string, () => unknown]> = [
    ['toJSON throws an Error holding a key', () => ({ toJSON: () => { throw new Error(`cannot serialise ${KEY} (configured ${CONFIGURED})\n    at toJSON (/srv/app.js:1:1)`); } })],
    ['toJSON throws a hostile Proxy', () => ({ toJSON: () => { throw hostileProxy(); } })],
    ['toJSON throws an Error whose message getter throws', () => ({ toJSON: () => { throw throwingMessage(); } })],
    ['circular', circular],
    ['a BigInt', () => ({ n: 10n, key: KEY })],
    ['a hostile Proxy', hostileProxy],
    ['a getter that throws', () => ({ get value() { throw new Error(`getter ${KEY}`); } })],
  ];

  test.each(results)('%s', async (_name, result) => {
    const tools = { bad: defineTool({ parameters: t.type({}), execute: () => result() }), fine: defineTool({ parameters: t.type({}), execute: () => 'ok' }) };
    const r = await run(tools as Record<string, Tool<unknown, unknown>>);
    expect(r.requests).toHaveLength(2);
    expect(r.outputs).toEqual([expect.stringMatching(/^Error: /), 'ok']);
    expect(r.failed).toEqual([expect.objectContaining({ reason: 'invalid_result' })]);
    secretFree(r);
  });

  test('a result codec whose check throws on the result', async () => {
    const result = new t.Type<string>('Hostile', (u): u is string => { throw new Error(`is ${KEY}`); }, (u, c) => t.failure(u, c), String);
    const tools = { bad: defineTool({ parameters: t.type({}), result, execute: () => 'x' }) };
    const r = await run(tools as Record<string, Tool<unknown, unknown>>);
    expect(r.failed).toEqual([expect.objectContaining({ reason: 'invalid_result' })]);
    expect(r.requests).toHaveLength(2);
    secretFree(r);
  });

  test('a shell handler whose result is a hostile Proxy', async () => {
    const calls = [{ id: 'sh_1', type: 'shell_call', call_id: 'c1', action: { commands: ['ls'] }, status: 'completed' }];
    const r = await run({}, calls, { handlers: { shell: () => hostileProxy() as never } });
    expect(r.failed).toEqual([expect.objectContaining({ reason: 'invalid_result' })]);
    expect(r.requests).toHaveLength(2);
    secretFree(r);
  });
});

test('a parameters codec whose decode throws: invalid_arguments, masked, and the loop goes on', async () => {
  // A refinement keeps its base's schema; its predicate runs only when the arguments are checked.
  const Hostile = t.refinement(t.string, (): boolean => { throw hostileProxy(); }, 'Hostile');
  const tools = { v: defineTool({ parameters: t.type({ q: Hostile }), execute: () => 'never' }), fine: defineTool({ parameters: t.type({}), execute: () => 'ok' }) };
  const r = await run(tools as Record<string, Tool<unknown, unknown>>, [{ ...fc('c0', 'v'), arguments: '{"q":"x"}' }, fc('c1', 'fine')]);
  expect(r.failed).toEqual([expect.objectContaining({ reason: 'invalid_arguments' })]);
  expect(r.outputs).toEqual([expect.stringMatching(/^Error: the arguments of v /), 'ok']);
  secretFree(r);
});

describe('a checkArguments that fails with a hostile value: invalid_arguments, masked, and the loop goes on', () => {
  const parameters = { type: 'object', properties: {}, additionalProperties: false };
  test.each([
    ...thrown.map(([name, v]): [string, (u: unknown) => boolean] => [`throws ${name}`, () => { throw v(); }]),
    ['returns a hostile Proxy', () => hostileProxy() as unknown as boolean],
    ['returns { success: false, error: <hostile Proxy> }', () => ({ success: false, error: hostileProxy() }) as unknown as boolean],
    ['returns false with errors whose message has a throwing toString', Object.assign(() => false, { errors: [{ instancePath: '/q', message: throwingToString() }] })],
  ])('%s', async (_name, checkArguments) => {
    const tools = { v: defineTool({ parameters, checkArguments, execute: () => 'never' }), fine: defineTool({ parameters: t.type({}), execute: () => 'ok' }) };
    const r = await run(tools as Record<string, Tool<unknown, unknown>>);
    expect(r.failed).toEqual([expect.objectContaining({ reason: 'invalid_arguments' })]);
    expect(r.outputs).toEqual([expect.stringMatching(/^Error: the arguments of v are invalid: /), 'ok']);
    expect(r.requests).toHaveLength(2);
    secretFree(r);
  });
});
