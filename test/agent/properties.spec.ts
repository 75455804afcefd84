// Invariants of answering a turn's calls, for any number of calls, durations, failures and `parallel`:
// every call is answered exactly once, the outputs go back in the order of the calls, and no more than
// `parallel` tools ever run at once.
import fc from 'fast-check';
import * as t from 'io-ts';
import { map, Observable, of, timer, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { defineTool, runAgent, type TurnTransport } from '../../agent/index';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import type { ResponseCreateParams } from '../../lib/http/transports';

const turn = (id: string, output: unknown[]): ResponseStreamEvent[] => [
  { type: 'response.created', response: { id, status: 'in_progress', output: [] } },
  { type: 'response.completed', response: { id, status: 'completed', output } },
] as unknown as ResponseStreamEvent[];

test('outputs in call order, each call once, at most `parallel` running', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ ms: fc.integer({ min: 0, max: 20 }), fails: fc.boolean(), name: fc.constantFrom('work', 'missing') }), { minLength: 1, maxLength: 10 }),
      fc.integer({ min: 1, max: 5 }),
      (specs, parallel) => {
        new TestScheduler((a, b) => expect(a).toEqual(b)).run(() => {
          let running = 0;
          let most = 0;
          const requests: ResponseCreateParams[] = [];
          const calls = specs.map((s, i) => ({ id: `fc_${i}`, type: 'function_call', call_id: `c${i}`, name: s.name, arguments: JSON.stringify({ i }), status: 'completed' }));
          const transport: TurnTransport = (body, { turn: n }) => {
            requests.push(body);
            return of(...(n === 1 ? turn('resp_1', calls) : turn('resp_2', [])));
          };
          const work = defineTool({
            parameters: t.type({ i: t.number }),
            execute: ({ i }) => new Observable<string>((s) => {
              most = Math.max(most, ++running);
              const spec = specs[i]!;
              const sub = timer(spec.ms).pipe(map(() => `r${i}`)).subscribe({ next: (v) => (spec.fails ? s.error(new Error(`f${i}`)) : s.next(v)), complete: () => s.complete() });
              return () => {
                running--;
                sub.unsubscribe();
              };
            }),
          });
          let events: unknown[] = [];
          runAgent({ model: 'm', input: 'x' }, { tools: { work }, transport, parallel }).pipe(toArray()).subscribe((e) => (events = e));
          return () => {
            expect(most).toBeLessThanOrEqual(parallel);
            const outputs = requests[1]?.['input'] as Array<{ call_id: string; output: string }>;
            expect(outputs.map((o) => o.call_id)).toEqual(specs.map((_, i) => `c${i}`));
            outputs.forEach((o, i) => {
              const s = specs[i]!;
              expect(o.output).toEqual(s.name === 'missing' ? expect.stringMatching(/no tool named "missing"/) : s.fails ? `Error: work failed: f${i}` : `r${i}`);
            });
            expect(events.filter((e) => (e as { type: string }).type.startsWith('agent.tool_call.') && (e as { type: string }).type !== 'agent.tool_call.started')).toHaveLength(specs.length);
          };
        })();
      },
    ),
    { numRuns: 150 },
  );
});
