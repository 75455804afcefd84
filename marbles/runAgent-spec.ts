import * as t from 'io-ts';
import { map, NEVER, Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { defineTool } from '../agent/define-tool';
import { MaxTurnsError } from '../agent/errors';
import type { AgentCall, AgentEvent } from '../agent/events';
import { runAgent, type AgentStreamEvent, type RunAgentOptions } from '../agent/run-agent';
import type { TurnTransport } from '../agent/turn';
import type { ResponseStreamEvent } from '../lib/events/responses';
import type { ResponseCreateParams } from '../lib/http/transports';
import { marbleScheduler } from '../test/helpers/marbles';

// runAgent against a scripted model: each turn is a cold marble, each tool a value or a cold marble, so the
// order and timing of the Responses events and the agent.* events between them are pinned frame by frame.

type E = ResponseStreamEvent;
const fc = (callId: string, name: string, args: string) => ({ id: `fc_${callId}`, type: 'function_call', call_id: callId, name, arguments: args, status: 'completed' });
const message = (id: string, text: string) => ({ id, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] });
const created = (id: string): E => ({ type: 'response.created', response: { id, status: 'in_progress', output: [] } }) as unknown as E;
const itemDone = (index: number, item: { id: string }): E => ({ type: 'response.output_item.done', output_index: index, item }) as unknown as E;
const completed = (id: string, output: unknown[]): E => ({ type: 'response.completed', response: { id, status: 'completed', output } }) as unknown as E;

/** A turn that calls the given items, then completes. */
const callsTurn = (id: string, items: Array<{ id: string }>): Record<string, E> => ({
  a: created(id), ...Object.fromEntries(items.map((item, i) => [String.fromCharCode(98 + i), itemDone(i, item)])), z: completed(id, items),
});
const answerTurn = (id: string, text: string): Record<string, E> => ({ a: created(id), b: itemDone(0, message(`msg_${id}`, text)), z: completed(id, [message(`msg_${id}`, text)]) });

/** One event as a short label: what happened and to which call / response. */
function label(e: AgentStreamEvent): string {
  const a = e as AgentEvent;
  switch (a.type) {
    case 'agent.tool_call.started': return `started ${a.call.call_id}`;
    case 'agent.tool_call.completed': return `done ${a.call.call_id}`;
    case 'agent.tool_call.failed': return `failed ${a.call.call_id} ${a.reason}`;
    case 'agent.approval.requested': return `ask ${a.call.call_id}`;
    case 'agent.approval.resolved': return `${a.approved ? 'yes' : 'no'} ${a.call.call_id}`;
    case 'agent.turn.finished': return `turn ${a.turn}`;
    case 'agent.run.finished': return `run ${a.turns}`;
  }
  const r = e as { type: string; response?: { id: string }; item?: { id: string } };
  if (r.type === 'response.output_item.done') return `item ${r.item?.id}`;
  return `${r.type.replace('response.', '')} ${r.response?.id}`;
}

/** A model whose turn n is `turns[n - 1]()`, recording every request. */
function scripted(turns: Array<() => Observable<E>>): { transport: TurnTransport; requests: ResponseCreateParams[] } {
  const requests: ResponseCreateParams[] = [];
  return {
    requests,
    transport: (body, { turn }) => {
      requests.push(body);
      const next = turns[turn - 1];
      if (!next) throw new Error(`the script has no turn ${turn}`);
      return next();
    },
  };
}

const request = { model: 'm', input: 'hi' };
const outputsOf = (body: ResponseCreateParams | undefined) => (body?.['input'] as Array<{ call_id: string; output: string }>).map((o) => [o.call_id, o.output]);
let scheduler: TestScheduler;
beforeEach(() => (scheduler = marbleScheduler()));

describe('runAgent marbles (scripted model)', () => {
  test('two parallel calls, then the answer: results in call order, one request per turn', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const model = scripted([
        () => cold('a-b-c-(z|)', callsTurn('resp_1', [fc('c1', 'slow', '{"n":1}'), fc('c2', 'fast', '{"n":2}')])),
        () => cold('a----b-(z|)', answerTurn('resp_2', 'Done.')),
      ]);
      const tools = {
        slow: defineTool({ parameters: t.type({ n: t.number }), execute: ({ n }) => cold('--------(x|)', { x: { slow: n } }) }),
        fast: defineTool({ parameters: t.type({ n: t.number }), execute: ({ n }) => cold('------(x|)', { x: `fast ${n}` }) }),
      };
      const out = runAgent(request, { tools, transport: model.transport }).pipe(map(label));
      expectObservable(out).toBe('a-b-c-(zST)-D-(CFA)B-(ZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', c: 'item fc_c2', z: 'completed resp_1', S: 'started c1', T: 'started c2',
        D: 'done c2', C: 'done c1', F: 'turn 1', A: 'created resp_2', B: 'item msg_resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(model.requests).toHaveLength(2);
      expect(model.requests[1]).toMatchObject({ model: 'm', previous_response_id: 'resp_1' });
      expect(outputsOf(model.requests[1])).toEqual([['c1', '{"slow":1}'], ['c2', 'fast 2']]);
    });
  });

  test('at most `parallel` calls run at once; the next starts when one ends', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const model = scripted([
        () => cold('(abcdz|)', callsTurn('resp_1', [fc('c1', 'w', '{}'), fc('c2', 'w', '{}'), fc('c3', 'w', '{}')])),
        () => cold('(az|)', answerTurn('resp_2', 'ok')),
      ]);
      const tools = { w: defineTool({ parameters: t.type({}), execute: (_a, { callId }) => cold('------------(x|)', { x: callId }) }) };
      const out = runAgent(request, { tools, transport: model.transport, parallel: 2 }).pipe(map(label));
      expectObservable(out).toBe('(abcdzST)---(DUE)-------(CHAZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', c: 'item fc_c2', d: 'item fc_c3', z: 'completed resp_1', S: 'started c1', T: 'started c2',
        D: 'done c1', U: 'started c3', E: 'done c2', C: 'done c3', H: 'turn 1', A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(outputsOf(model.requests[1])).toEqual([['c1', 'c1'], ['c2', 'c2'], ['c3', 'c3']]);
    });
  });

  test('parallel defaults to 4: of six calls, the fifth starts when the first ends, the sixth when the second ends', () => {
    scheduler.run(({ cold }) => {
      const calls = [1, 2, 3, 4, 5, 6].map((i) => fc(`c${i}`, 'w', '{}'));
      const model = scripted([() => cold('(abcdefgz|)', callsTurn('resp_1', calls)), () => cold('(az|)', answerTurn('resp_2', 'ok'))]);
      const ms: Record<string, string> = { c1: '---(x|)', c2: '----(x|)' };
      const tools = { w: defineTool({ parameters: t.type({}), execute: (_a, { callId }) => cold(ms[callId] ?? '------(x|)', { x: callId }) }) };
      // Frame by frame (a group in a marble string takes as many frames as it has characters, so the log is plainer).
      const log: string[] = [];
      runAgent(request, { tools, transport: model.transport }).subscribe((e) => e.type.startsWith('agent.tool_call') && log.push(`${scheduler.now()} ${label(e)}`));
      scheduler.flush();
      expect(log).toEqual([
        '0 started c1', '0 started c2', '0 started c3', '0 started c4',
        '3 done c1', '3 started c5', '4 done c2', '4 started c6', '6 done c3', '6 done c4', '9 done c5', '10 done c6',
      ]);
      expect(outputsOf(model.requests[1]).map(([id]) => id)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    });
  });

  test('a failing tool: the model gets an error output (no stack, key masked) and the loop goes on', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const model = scripted([() => cold('a-b-(z|)', callsTurn('resp_1', [fc('c1', 'boom', '{}')])), () => cold('a-----(z|)', answerTurn('resp_2', 'Sorry.'))]);
      const events: AgentStreamEvent[] = [];
      const tools = {
        boom: defineTool({ parameters: t.type({}), execute: () => cold('-----#', undefined, new Error('upstream refused key sk-proj-abcdefghijklmnopqrstuvwx')) }),
      };
      const out = runAgent(request, { tools, transport: model.transport });
      expectObservable(out.pipe(map((e) => (events.push(e), label(e))))).toBe('a-b-(zS)-(XFA)-(ZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', z: 'completed resp_1', S: 'started c1', X: 'failed c1 tool_error', F: 'turn 1',
        A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      const [[callId, output]] = outputsOf(model.requests[1]) as [[string, string]];
      expect(callId).toBe('c1');
      expect(output).toMatch(/^Error: boom failed: upstream refused key /);
      expect(output).not.toContain('abcdefghijklmnopqrstuvwx');
      expect(output).not.toMatch(/\n\s+at /);
      expect(events.find((e) => e.type === 'agent.tool_call.failed')).toMatchObject({ reason: 'tool_error', message: output.replace(/^Error: /, '') });
    });
  });

  test('undecodable arguments (not JSON, or not the codec): error outputs naming what is wrong; the tool never runs', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const model = scripted([
        () => cold('a-b-c-(z|)', callsTurn('resp_1', [fc('c1', 'weather', '{"city":'), fc('c2', 'weather', '{"city":3,"unit":"kelvin"}')])),
        () => cold('a-------(z|)', answerTurn('resp_2', 'ok')),
      ]);
      const execute = jest.fn(() => 'never');
      const tools = { weather: defineTool({ parameters: t.type({ city: t.string, unit: t.keyof({ celsius: null, fahrenheit: null }) }), execute }) };
      const out = runAgent(request, { tools, transport: model.transport }).pipe(map(label));
      expectObservable(out).toBe('a-b-c-(zXYFA)-(ZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', c: 'item fc_c2', z: 'completed resp_1', X: 'failed c1 invalid_arguments', Y: 'failed c2 invalid_arguments',
        F: 'turn 1', A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(execute).not.toHaveBeenCalled();
      const outputs = outputsOf(model.requests[1]);
      expect(outputs[0]).toEqual(['c1', 'Error: the arguments of weather are not valid JSON']);
      expect(outputs[1]![1]).toMatch(/^Error: the arguments of weather are invalid: city: expected string, got 3; unit: expected .*got "kelvin"/);
    });
  });

  test('an unknown tool: an error output listing the tools; the loop goes on', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const model = scripted([() => cold('a-b-(z|)', callsTurn('resp_1', [fc('c1', 'nope', '{}')])), () => cold('a------(z|)', answerTurn('resp_2', 'ok'))]);
      const tools = { known: defineTool({ parameters: t.type({}), execute: () => 'x' }) };
      expectObservable(runAgent(request, { tools, transport: model.transport }).pipe(map(label))).toBe('a-b-(zXFA)-(ZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', z: 'completed resp_1', X: 'failed c1 unknown_tool', F: 'turn 1', A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(outputsOf(model.requests[1])).toEqual([['c1', 'Error: there is no tool named "nope"; the tools are: known']]);
    });
  });

  test('maxTurns: MaxTurnsError after the last turn\'s events and tool results; no further request', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const again = (n: number, marble: string) => () => cold(marble, callsTurn(`resp_${n}`, [fc(`c${n}`, 'again', '{}')]));
      const model = scripted([again(1, 'a-b-(z|)'), again(2, 'a-------b-(z|)'), again(3, 'a-b-(z|)')]);
      const tools = { again: defineTool({ parameters: t.type({}), execute: () => 'more' }) };
      expectObservable(runAgent(request, { tools, transport: model.transport, maxTurns: 2 }).pipe(map(label))).toBe('a-b-(zSDFA)-B-(YTUG#)', {
        a: 'created resp_1', b: 'item fc_c1', z: 'completed resp_1', S: 'started c1', D: 'done c1', F: 'turn 1',
        A: 'created resp_2', B: 'item fc_c2', Y: 'completed resp_2', T: 'started c2', U: 'done c2', G: 'turn 2',
      }, new MaxTurnsError(2, 'resp_2'));
      scheduler.flush();
      expect(model.requests).toHaveLength(2);
    });
  });

  test('cancellation while a tool runs: its signal aborts, and no next request is sent', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const model = scripted([() => cold('a-b-(z|)', callsTurn('resp_1', [fc('c1', 'long', '{}')])), () => cold('a-(z|)', answerTurn('resp_2', 'never'))]);
      let signal: AbortSignal | undefined;
      const tools = {
        long: defineTool({ parameters: t.type({}), execute: (_a, ctx) => ((signal = ctx.signal), NEVER) }),
      };
      expectObservable(runAgent(request, { tools, transport: model.transport }).pipe(map(label)), '^-------!').toBe('a-b-(zS)', {
        a: 'created resp_1', b: 'item fc_c1', z: 'completed resp_1', S: 'started c1',
      });
      scheduler.flush();
      expect(signal?.aborted).toBe(true);
      expect(model.requests).toHaveLength(1);
    });
  });

  test('maxTurns defaults to 10: ten requests, then MaxTurnsError after the tenth turn\'s events, with the conversation', () => {
    scheduler.run(({ cold }) => {
      const model = scripted(Array.from({ length: 11 }, (_, i) => () => cold('(abz|)', callsTurn(`resp_${i + 1}`, [fc(`c${i + 1}`, 'again', '{}')]))));
      const tools = { again: defineTool({ parameters: t.type({}), execute: () => 'more' }) };
      const seen: string[] = [];
      let error: unknown;
      runAgent(request, { tools, transport: model.transport }).subscribe({ next: (e) => seen.push(label(e)), error: (e: unknown) => (error = e) });
      scheduler.flush();
      expect(model.requests).toHaveLength(10);
      expect(error).toBeInstanceOf(MaxTurnsError);
      expect(error).toMatchObject({ maxTurns: 10, responseId: 'resp_10' });
      expect(seen.slice(-4)).toEqual(['completed resp_10', 'started c10', 'done c10', 'turn 10']);
      // Every item so far, the last outputs included: enough to carry on.
      expect((error as MaxTurnsError).items).toHaveLength(1 + 10 * 2);
      expect((error as MaxTurnsError).items.at(-1)).toEqual({ type: 'function_call_output', call_id: 'c10', output: 'more' });
    });
  });

  test('cancellation aborts every running tool, never starts a queued one, drops a pending approval, sends nothing', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const calls = [fc('c1', 'long', '{}'), fc('c2', 'long', '{}'), fc('c3', 'long', '{}'), fc('c4', 'guarded', '{}')];
      const model = scripted([() => cold('(abcdz|)', callsTurn('resp_1', calls)), () => cold('(az|)', answerTurn('resp_2', 'never'))]);
      const signals = new Map<string, AbortSignal>();
      const long = defineTool({ parameters: t.type({}), execute: (_a, ctx) => (signals.set(ctx.callId, ctx.signal), NEVER) });
      const guarded = defineTool({ parameters: t.type({}), needsApproval: true, execute: () => 'ran' });
      const decision = cold('----------(y|)', { y: true });
      let approvalSignal: AbortSignal | undefined;
      const approve = (_call: AgentCall, { signal }: { signal: AbortSignal }) => ((approvalSignal = signal), decision);
      const out = runAgent(request, { tools: { long, guarded }, approve, transport: model.transport, parallel: 2 });
      expectObservable(out.pipe(map(label)), '^------!').toBe('(abcdzSTQ)', {
        a: 'created resp_1', b: 'item fc_c1', c: 'item fc_c2', d: 'item fc_c3', e: 'item fc_c4', z: 'completed resp_1', Q: 'ask c4', S: 'started c1', T: 'started c2',
      });
      expectSubscriptions(decision.subscriptions).toBe('^------!');
      scheduler.flush();
      expect([...signals.keys()]).toEqual(['c1', 'c2']); // c3 waited for a slot and never started
      expect([...signals.values()].map((s) => s.aborted)).toEqual([true, true]);
      expect(approvalSignal?.aborted).toBe(true); // a dialog waiting for the user can close
      expect(model.requests).toHaveLength(1);
    });
  });

  test('cancellation during a turn unsubscribes from the model request', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const turn1 = cold('a---b-(z|)', callsTurn('resp_1', [fc('c1', 'x', '{}')]));
      const model = scripted([() => turn1]);
      expectObservable(runAgent(request, { transport: model.transport }).pipe(map(label)), '^--!').toBe('a---', { a: 'created resp_1' });
      expectSubscriptions(turn1.subscriptions).toBe('^--!');
    });
  });

  test('toolTimeoutMs: the call is told it timed out, its signal aborts, the loop goes on', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const model = scripted([() => cold('a-b-(z|)', callsTurn('resp_1', [fc('c1', 'stuck', '{}')])), () => cold('a-----(z|)', answerTurn('resp_2', 'ok'))]);
      let signal: AbortSignal | undefined;
      const tools = { stuck: defineTool({ parameters: t.type({}), execute: (_a, ctx) => ((signal = ctx.signal), NEVER) }) };
      expectObservable(runAgent(request, { tools, transport: model.transport, toolTimeoutMs: 5 }).pipe(map(label))).toBe('a-b-(zS)-(XFA)-(ZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', z: 'completed resp_1', S: 'started c1', X: 'failed c1 timeout', F: 'turn 1',
        A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(signal?.aborted).toBe(true);
      expect(outputsOf(model.requests[1])).toEqual([['c1', 'Error: stuck did not answer within 5 ms']]);
    });
  });

  test('approval granted: the tool runs after approve answers', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const model = scripted([() => cold('a-b-(z|)', callsTurn('resp_1', [fc('c1', 'pay', '{"amount":5}')])), () => cold('a-------(z|)', answerTurn('resp_2', 'Paid.'))]);
      const asked: AgentCall[] = [];
      const tools = { pay: defineTool({ parameters: t.type({ amount: t.number }), needsApproval: true, execute: ({ amount }) => `paid ${amount}` }) };
      const approve = (call: AgentCall) => (asked.push(call), cold('----(y|)', { y: true }));
      expectObservable(runAgent(request, { tools, approve, transport: model.transport }).pipe(map(label))).toBe('a-b-(zQ)(YSDFA)-(ZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', z: 'completed resp_1', Q: 'ask c1', Y: 'yes c1', S: 'started c1', D: 'done c1', F: 'turn 1',
        A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(asked).toEqual([expect.objectContaining({ type: 'function_call', call_id: 'c1', name: 'pay', args: { amount: 5 } })]);
      expect(outputsOf(model.requests[1])).toEqual([['c1', 'paid 5']]);
    });
  });

  test('approval from an Observable that does not complete (a button\'s clicks): its first value decides, and it is unsubscribed', () => {
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const model = scripted([() => cold('(abz|)', callsTurn('resp_1', [fc('c1', 'pay', '{"amount":5}')])), () => cold('(az|)', answerTurn('resp_2', 'Paid.'))]);
      const tools = { pay: defineTool({ parameters: t.type({ amount: t.number }), needsApproval: true, execute: ({ amount }) => `paid ${amount}` }) };
      const clicks = hot('------y--n--', { y: true, n: false });
      expectObservable(runAgent(request, { tools, approve: () => clicks, transport: model.transport }).pipe(map(label))).toBe('(abzQ)(YSDFAZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', z: 'completed resp_1', Q: 'ask c1', Y: 'yes c1', S: 'started c1', D: 'done c1', F: 'turn 1',
        A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      expectSubscriptions(clicks.subscriptions).toBe('^-----!');
    });
  });

  test('approval refused: the tool does not run and the model is told; an MCP request gets approve: false', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const mcp = { id: 'mcpr_1', type: 'mcp_approval_request', server_label: 'deepwiki', name: 'ask', arguments: '{}' };
      const model = scripted([() => cold('a-b-c-(z|)', callsTurn('resp_1', [fc('c1', 'pay', '{"amount":5}'), mcp])), () => cold('a----------(z|)', answerTurn('resp_2', 'Not paid.'))]);
      const execute = jest.fn(() => 'paid');
      const tools = { pay: defineTool({ parameters: t.type({ amount: t.number }), needsApproval: ({ amount }) => amount > 1, execute }) };
      expectObservable(runAgent(request, { tools, approve: () => false, transport: model.transport }).pipe(map(label))).toBe('a-b-c-(zPNXQMFA)-(ZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', c: 'item mcpr_1', z: 'completed resp_1', P: 'ask c1', N: 'no c1', X: 'failed c1 refused',
        Q: 'ask mcpr_1', M: 'no mcpr_1', F: 'turn 1', A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(execute).not.toHaveBeenCalled();
      expect(model.requests[1]?.['input']).toEqual([
        { type: 'function_call_output', call_id: 'c1', output: 'Error: the call was not approved, so pay did not run' },
        { type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: false },
      ]);
    });
  });

  test('store: false resends the whole conversation, reasoning with its encrypted_content', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const reasoning = { id: 'rs_1', type: 'reasoning', summary: [], encrypted_content: 'gAAAA-opaque' };
      const call = fc('c1', 'echo', '{"s":"x"}');
      const model = scripted([
        () => cold('a-b-c-(z|)', { a: created('resp_1'), b: itemDone(0, reasoning), c: itemDone(1, call), z: completed('resp_1', [reasoning, call]) }),
        () => cold('a-------(z|)', answerTurn('resp_2', 'x')),
      ]);
      const tools = { echo: defineTool({ parameters: t.type({ s: t.string }), execute: ({ s }) => s }) };
      const out = runAgent({ model: 'm', input: 'hi', store: false }, { tools, transport: model.transport });
      expectObservable(out.pipe(map(label))).toBe('a-b-c-(zSDFA)-(ZGR|)', {
        a: 'created resp_1', b: 'item rs_1', c: 'item fc_c1', z: 'completed resp_1', S: 'started c1', D: 'done c1', F: 'turn 1',
        A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(model.requests[0]).toMatchObject({ input: 'hi', store: false, include: ['reasoning.encrypted_content'] });
      expect(model.requests[1]).not.toHaveProperty('previous_response_id');
      expect(model.requests[1]?.['input']).toEqual([{ role: 'user', content: 'hi' }, reasoning, call, { type: 'function_call_output', call_id: 'c1', output: 'x' }]);
    });
  });

  test('store: false leaves out a reasoning item that came without encrypted_content (the API would look its id up and 404)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const bare = { id: 'rs_1', type: 'reasoning', summary: [] };
      const call = fc('c1', 'echo', '{"s":"x"}');
      const model = scripted([
        () => cold('(abcz|)', { a: created('resp_1'), b: itemDone(0, bare), c: itemDone(1, call), z: completed('resp_1', [bare, call]) }),
        () => cold('(az|)', answerTurn('resp_2', 'x')),
      ]);
      const tools = { echo: defineTool({ parameters: t.type({ s: t.string }), execute: ({ s }) => s }) };
      const events: AgentStreamEvent[] = [];
      expectObservable(runAgent({ model: 'm', input: 'hi', store: false }, { tools, transport: model.transport }).pipe(map((e) => (events.push(e), e.type)))).toBe('(abcdefghijk|)', {
        a: 'response.created', b: 'response.output_item.done', c: 'response.output_item.done', d: 'response.completed', e: 'agent.tool_call.started',
        f: 'agent.tool_call.completed', g: 'agent.turn.finished', h: 'response.created', i: 'response.completed', j: 'agent.turn.finished', k: 'agent.run.finished',
      });
      scheduler.flush();
      expect(model.requests[1]?.['input']).toEqual([{ role: 'user', content: 'hi' }, call, { type: 'function_call_output', call_id: 'c1', output: 'x' }]);
      // The run's items keep it (with store: true it could be sent by reference).
      expect((events.at(-1) as unknown as { items: unknown[] }).items).toContainEqual(bare);
    });
  });

  test('a conversation (Conversations API) carries the state: later turns send the outputs on it, never previous_response_id', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const model = scripted([() => cold('(abz|)', callsTurn('resp_1', [fc('c1', 'id', '{}')])), () => cold('(az|)', answerTurn('resp_2', 'ok'))]);
      const tools = { id: defineTool({ parameters: t.type({}), execute: () => 'x' }) };
      expectObservable(runAgent({ ...request, conversation: 'conv_1' }, { tools, transport: model.transport }).pipe(map(label))).toBe('(abzSDFAZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', z: 'completed resp_1', S: 'started c1', D: 'done c1', F: 'turn 1', A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(model.requests[1]).toMatchObject({ conversation: 'conv_1', input: [{ type: 'function_call_output', call_id: 'c1', output: 'x' }] });
      expect(model.requests[1]).not.toHaveProperty('previous_response_id');
    });
  });

  test('a forced tool_choice applies to the first turn only', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const model = scripted([() => cold('a-b-(z|)', callsTurn('resp_1', [fc('c1', 'id', '{}')])), () => cold('a-------(z|)', answerTurn('resp_2', 'ok'))]);
      const tools = { id: defineTool({ parameters: t.type({}), execute: () => 'x' }) };
      expectObservable(runAgent({ ...request, tool_choice: 'required' }, { tools, transport: model.transport }).pipe(map(label))).toBe('a-b-(zSDFA)-(ZGR|)', {
        a: 'created resp_1', b: 'item fc_c1', z: 'completed resp_1', S: 'started c1', D: 'done c1', F: 'turn 1', A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(model.requests[0]).toMatchObject({ tool_choice: 'required' });
      expect(model.requests[1]).not.toHaveProperty('tool_choice');
    });
  });

  test('client tools: a shell handler answers with shell_call_output; a missing handler with an error output', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const shell = { id: 'sh_1', type: 'shell_call', call_id: 'cs', status: 'completed', action: { commands: ['ls'], max_output_length: 100 } };
      const patch = { id: 'ap_1', type: 'apply_patch_call', call_id: 'cp', status: 'completed', operation: { type: 'delete_file', path: 'a.txt' } };
      const model = scripted([() => cold('a-b-c-(z|)', callsTurn('resp_1', [shell, patch])), () => cold('a-----(z|)', answerTurn('resp_2', 'ok'))]);
      const handlers: RunAgentOptions['handlers'] = { shell: () => cold('-----(x|)', { x: [{ stdout: 'a.txt\n', stderr: '', outcome: { type: 'exit' as const, exit_code: 0 } }] }) };
      expectObservable(runAgent(request, { handlers, transport: model.transport }).pipe(map(label))).toBe('a-b-c-(zSX)(DFA)-(ZGR|)', {
        a: 'created resp_1', b: 'item sh_1', c: 'item ap_1', z: 'completed resp_1', S: 'started cs', X: 'failed cp unknown_tool', D: 'done cs', F: 'turn 1',
        A: 'created resp_2', Z: 'completed resp_2', G: 'turn 2', R: 'run 2',
      });
      scheduler.flush();
      expect(model.requests[1]?.['input']).toEqual([
        { type: 'shell_call_output', call_id: 'cs', output: [{ stdout: 'a.txt\n', stderr: '', outcome: { type: 'exit', exit_code: 0 } }], max_output_length: 100 },
        { type: 'apply_patch_call_output', call_id: 'cp', status: 'failed', output: 'Error: no handler runs apply_patch_call items here' },
      ]);
    });
  });

  test('run.finished carries every item of the conversation and the answer text', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const call = fc('c1', 'id', '{}');
      const model = scripted([() => cold('(abz|)', callsTurn('resp_1', [call])), () => cold('(abz|)', answerTurn('resp_2', 'The end.'))]);
      const tools = { id: defineTool({ parameters: t.type({}), execute: () => ({ ok: true }) }) };
      const last = new Observable<AgentStreamEvent>((s) => runAgent(request, { tools, transport: model.transport }).subscribe({ next: (e) => e.type === 'agent.run.finished' && s.next(e), complete: () => s.complete() }));
      expectObservable(last).toBe('(r|)', {
        r: {
          type: 'agent.run.finished', turns: 2, response_id: 'resp_2', output_text: 'The end.',
          items: [{ role: 'user', content: 'hi' }, call, { type: 'function_call_output', call_id: 'c1', output: '{"ok":true}' }, message('msg_resp_2', 'The end.')],
        },
      });
    });
  });
});
