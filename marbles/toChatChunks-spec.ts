import { toChatChunks } from '../operators/toChatChunks';
import { DecodeError, ResponseStreamError } from '../lib/errors';
import type { ResponseStreamEvent } from '../lib/events/responses';
import { CREATED_AT, MODEL, RESPONSE_ID, call, customCall, ev, USAGE } from '../test/chat/build';
import { at, spaced } from '../test/chat/marbles';
import { marbleScheduler } from '../test/helpers/marbles';

const scheduler = () => marbleScheduler();

/** An expected chunk: one choice at index 0 carrying `delta`. */
const c = (delta: Record<string, unknown>, finish: string | null = null) => ({
  id: RESPONSE_ID, object: 'chat.completion.chunk', created: CREATED_AT, model: MODEL,
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});
const role = c({ role: 'assistant', content: '' });
/** An answer that starts with anything but text (refusal, tool calls, reasoning) starts with content null, as a chat provider's. */
const roleNull = c({ role: 'assistant', content: null });
const tc = (index: number, fn: Record<string, unknown>, extra: Record<string, unknown> = {}) => c({ tool_calls: [{ index, ...extra, function: fn }] });
const open = (index: number, id: string, name: string) => tc(index, { name, arguments: '' }, { id, type: 'function' });
/** A custom tool call fragment, and a custom call's first fragment (id, type and whole name, input ''). */
const ctc = (index: number, custom: Record<string, unknown>, extra: Record<string, unknown> = {}) => c({ tool_calls: [{ index, ...extra, custom }] });
const openCustom = (index: number, id: string, name: string) => ctc(index, { name, input: '' }, { id, type: 'custom' });

describe('toChatChunks', () => {
  it('emits the role chunk once, then text as content, at the frame of each delta', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abcde|'), { a: ev.created(), b: ev.messageAdded(), c: ev.text('Hel'), d: ev.text('lo'), e: ev.completed() });
      expectObservable(src.pipe(toChatChunks())).toBe(at([10, '(rx)'], [15, 'y'], [20, '(f|)']), { r: role, x: c({ content: 'Hel' }), y: c({ content: 'lo' }), f: c({}, 'stop') });
    });
  });

  it('maps refusal deltas to delta.refusal and skips empty deltas', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abcd|'), { a: ev.created(), b: ev.refusal('No.'), c: ev.text(''), d: ev.completed() });
      expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [15, '(f|)']), { r: roleNull, x: c({ refusal: 'No.' }), f: c({}, 'stop') });
    });
  });

  it('numbers function calls densely in opening order and routes argument deltas by output_index', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abcdegh|'), {
        a: ev.created(),
        b: ev.callAdded(1, 'call_A', 'get_weather'),
        c: ev.callAdded(3, 'call_B', 'get_time'),
        d: ev.args(3, '{"tz":'),
        e: ev.args(1, '{"city":"Oslo"}'),
        g: ev.args(1, ''),
        h: ev.completed(),
      });
      expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [10, 'y'], [15, 'z'], [20, 'v'], [30, '(f|)']), {
        r: roleNull,
        x: open(0, 'call_A', 'get_weather'),
        y: open(1, 'call_B', 'get_time'),
        z: tc(1, { arguments: '{"tz":' }),
        v: tc(0, { arguments: '{"city":"Oslo"}' }),
        f: c({}, 'tool_calls'),
      });
    });
  });

  it('sends the argument suffix carried only by .done, then by the finished item, and nothing when complete', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abcdeg|'), {
        a: ev.callAdded(0, 'call_A', 'f'),
        b: ev.args(0, '{"a"'),
        c: ev.argsDone(0, '{"a":1'),
        d: ev.callDone(0, 'call_A', 'f', '{"a":1}'),
        e: ev.argsDone(0, '{"a":1}'),
        g: ev.completed({ output: [call('call_A', 'f', '{"a":1}')] }),
      });
      expectObservable(src.pipe(toChatChunks())).toBe(at([0, '(rx)'], [5, 'y'], [10, 'z'], [15, 'w'], [25, '(f|)']), {
        r: { ...roleNull, id: '', created: 0, model: '' },
        x: { ...open(0, 'call_A', 'f'), id: '', created: 0, model: '' },
        y: { ...tc(0, { arguments: '{"a"' }), id: '', created: 0, model: '' },
        z: { ...tc(0, { arguments: ':1' }), id: '', created: 0, model: '' },
        w: { ...tc(0, { arguments: '}' }), id: '', created: 0, model: '' },
        f: c({}, 'tool_calls'),
      });
    });
  });

  it('emits a call that appears only in the final output', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abc|'), {
        a: ev.created(),
        b: ev.callAdded(0, 'call_A', 'f', ''),
        c: ev.completed({ output: [call('call_A', 'f', '{}'), call('call_Z', 'late', '{"x":2}')] }),
      });
      expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [10, '(abcf|)']), {
        r: roleNull,
        x: open(0, 'call_A', 'f'),
        a: tc(0, { arguments: '{}' }),
        b: open(1, 'call_Z', 'late'),
        c: tc(1, { arguments: '{"x":2}' }),
        f: c({}, 'tool_calls'),
      });
    });
  });

  it('puts reasoning in reasoning_content with a blank line between parts, never in content', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abcdeg|'), {
        a: ev.created(), b: ev.summary('Think'), c: ev.summary('ing.'), d: ev.summary('Next', 0, 1), e: ev.reasoningText('raw', 1, 0), g: ev.text('Answer', 2),
      });
      expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [10, 'y'], [15, 'z'], [20, 'v'], [25, 'w'], [30, '|']), {
        r: roleNull,
        x: c({ reasoning_content: 'Think' }),
        y: c({ reasoning_content: 'ing.' }),
        z: c({ reasoning_content: '\n\nNext' }),
        v: c({ reasoning_content: '\n\nraw' }),
        w: c({ content: 'Answer' }),
      });
    });
  });

  it('uses the configured reasoning field name, or drops reasoning with false', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const events = { a: ev.created(), b: ev.summary('hmm'), c: ev.text('A', 1) };
      expectObservable(cold(spaced('abc|'), events).pipe(toChatChunks({ reasoningField: 'reasoning' }))).toBe(at([5, '(rx)'], [10, 'y'], [15, '|']), {
        r: roleNull, x: c({ reasoning: 'hmm' }), y: c({ content: 'A' }),
      });
      expectObservable(cold(spaced('abc|'), events).pipe(toChatChunks({ reasoningField: false }))).toBe(at([10, '(ry)'], [15, '|']), { r: role, y: c({ content: 'A' }) });
    });
  });

  it('maps url_citation annotations to delta.annotations (offset to the whole content) and skips other kinds', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abcde|'), {
        a: ev.text('Intro. '),
        b: ev.text('Cited', 1),
        c: ev.annotation({ type: 'url_citation', start_index: 0, end_index: 5, url: 'https://x.test', title: 'X' }, 1),
        d: ev.annotation({ type: 'file_citation', file_id: 'f', index: 0 }, 1),
        e: ev.completed(),
      });
      const blank = { id: '', created: 0, model: '' };
      expectObservable(src.pipe(toChatChunks())).toBe(at([0, '(rx)'], [5, 'y'], [10, 'z'], [20, '(f|)']), {
        r: { ...role, ...blank },
        x: { ...c({ content: 'Intro. ' }), ...blank },
        y: { ...c({ content: 'Cited' }), ...blank },
        z: { ...c({ annotations: [{ type: 'url_citation', url_citation: { start_index: 7, end_index: 12, url: 'https://x.test', title: 'X' } }] }), ...blank },
        f: c({}, 'stop'),
      });
    });
  });

  it.each([
    ['max_output_tokens', 'length'],
    [null, 'length'],
    ['content_filter', 'content_filter'],
  ])('ends an incomplete response (%s) with finish_reason %s, even after a function call', (reason, finish) => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abc|'), { a: ev.created(), b: ev.callAdded(0, 'call_A', 'f'), c: ev.incomplete(reason) });
      expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [10, '(f|)']), { r: roleNull, x: open(0, 'call_A', 'f'), f: c({}, finish) });
    });
  });

  it('ends with a role chunk (content null) and a stop chunk when the response has no content', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold(spaced('ab|'), { a: ev.created(), b: ev.completed() }).pipe(toChatChunks())).toBe(at([5, '(rf|)']), { r: roleNull, f: c({}, 'stop') });
    });
  });

  it('adds a usage chunk with choices: [] when includeUsage is set', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abc|'), { a: ev.created(), b: ev.text('x'), c: ev.completed({ usage: USAGE }) });
      expectObservable(src.pipe(toChatChunks({ includeUsage: true }))).toBe(at([5, '(rx)'], [10, '(fu|)']), {
        r: role,
        x: c({ content: 'x' }),
        f: c({}, 'stop'),
        u: {
          id: RESPONSE_ID, object: 'chat.completion.chunk', created: CREATED_AT, model: MODEL, choices: [],
          usage: { prompt_tokens: 21, completion_tokens: 34, total_tokens: 55, prompt_tokens_details: { cached_tokens: 5 }, completion_tokens_details: { reasoning_tokens: 13 } },
        },
      });
    });
  });

  it('completes at the terminal event and ignores anything after it', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold(spaced('abcd|'), { a: ev.created(), b: ev.completed(), c: ev.text('late'), d: ev.completed() });
      expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rf|)']), { r: roleNull, f: c({}, 'stop') });
      expectSubscriptions(src.subscriptions).toBe(at([0, '^'], [5, '!']));
    });
  });

  it('produces no chunk and no error for events without a chat equivalent', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abcdefghz|'), {
        a: ev.queued(), b: ev.inProgress(), c: ev.messageAdded(), d: ev.partAdded(), e: ev.textDone(''),
        f: { type: 'response.web_search_call.searching', item_id: 'ws', output_index: 1 },
        g: { type: 'response.something_new', foo: 1 },
        h: { type: 'response.output_item.added', output_index: 2, item: { id: 'x', type: 'future_item' } },
        z: ev.completed(),
      });
      expectObservable(src.pipe(toChatChunks())).toBe(at([40, '(rf|)']), { r: role, f: c({}, 'stop') });
    });
  });

  it('passes the transport error through after response.failed, with no finish chunk', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const err = new ResponseStreamError('response.failed', 'server_error', 'boom', undefined, 3, RESPONSE_ID, {});
      const src = cold('a 4ms b 4ms (c#)', { a: ev.created(), b: ev.text('par'), c: ev.failed() }, err);
      expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [10, '#']), { r: role, x: c({ content: 'par' }) }, err);
    });
  });

  it('turns response.failed / error on a source that completes instead into a ResponseStreamError', () => {
    for (const [terminal, code] of [[ev.failed(), 'server_error'], [ev.error(), 'rate_limit_exceeded']] as const) {
      let caught: unknown;
      const chunks: unknown[] = [];
      scheduler().run(({ cold, flush }) => {
        cold(spaced('abc|'), { a: ev.created(), b: terminal, c: ev.text('after') }).pipe(toChatChunks()).subscribe({ next: (x) => chunks.push(x), error: (e) => (caught = e) });
        flush();
      });
      expect(chunks).toEqual([]);
      expect(caught).toBeInstanceOf(ResponseStreamError);
      expect((caught as ResponseStreamError).code).toBe(code);
    }
  });

  it('passes other errors through unchanged', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold('a 4ms #', { a: ev.text('x') }, new Error('net'));
      expectObservable(src.pipe(toChatChunks())).toBe(at([0, '(rx)'], [5, '#']), { r: { ...role, id: '', created: 0, model: '' }, x: { ...c({ content: 'x' }), id: '', created: 0, model: '' } }, new Error('net'));
    });
  });

  it('ignores a lifecycle event with no response object (metadata only) and keeps going', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const bare = { type: 'response.created', sequence_number: 0 } as unknown as ResponseStreamEvent;
      const src = cold(spaced('abc|'), { a: bare, b: ev.created(), c: ev.text('x') });
      expectObservable(src.pipe(toChatChunks())).toBe(at([10, '(rx)'], [15, '|']), { r: role, x: c({ content: 'x' }) });
    });
  });

  it('ends with a DecodeError naming the event, its sequence_number and the field when a field it needs has the wrong type', () => {
    const bad = { type: 'response.output_item.added', sequence_number: 7, output_index: 0, item: { type: 'function_call', call_id: 42, name: 'f' } };
    let caught: unknown;
    const chunks: unknown[] = [];
    scheduler().run(({ cold, flush }) => {
      cold('ab', { a: ev.text('x'), b: bad as unknown as ResponseStreamEvent }).pipe(toChatChunks()).subscribe({ next: (x) => chunks.push(x), error: (e) => (caught = e) });
      flush();
    });
    expect(chunks).toHaveLength(2);
    expect(caught).toBeInstanceOf(DecodeError);
    expect(caught).toMatchObject({ eventType: 'response.output_item.added', sequenceNumber: 7, path: 'item.call_id' });
  });

  it('treats prototype keys and absurd output indices as plain keys: no pollution, calls still routed', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const argsAt = (oi: unknown, delta: string) => ({ type: 'response.function_call_arguments.delta', item_id: 'fc_x', output_index: oi, delta }) as unknown as ResponseStreamEvent;
      const src = cold(spaced('eabcd|'), { e: ev.created(), a: ev.callAdded(-1, 'call_A', 'f'), b: ev.callAdded(1e308, 'call_B', 'g'), c: argsAt(1e308, '{}'), d: argsAt('__proto__', '[]') });
      expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [10, 'y'], [15, 'z'], [20, '#']), { r: roleNull, x: open(0, 'call_A', 'f'), y: open(1, 'call_B', 'g'), z: tc(1, { arguments: '{}' }) }, expect.any(DecodeError));
    });
    expect(Object.prototype.hasOwnProperty.call(Map.prototype, 'k')).toBe(false);
    expect(({} as Record<string, unknown>)['k']).toBeUndefined();
  });

  it('unsubscribes from the source when unsubscribed', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold(spaced('abcd|'), { a: ev.created(), b: ev.text('1'), c: ev.text('2'), d: ev.completed() });
      expectObservable(src.pipe(toChatChunks()), at([0, '^'], [7, '!'])).toBe(at([5, '(rx)']), { r: role, x: c({ content: '1' }) });
      expectSubscriptions(src.subscriptions).toBe(at([0, '^'], [7, '!']));
    });
  });

  it('sends text that arrives only in .done at the frame of the .done, and only what the deltas did not carry', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abcde|'), { a: ev.created(), b: ev.messageAdded(), c: ev.text('Hel'), d: ev.textDone('Hello'), e: ev.completed() });
      expectObservable(src.pipe(toChatChunks())).toBe(at([10, '(rx)'], [15, 'y'], [20, '(f|)']), { r: role, x: c({ content: 'Hel' }), y: c({ content: 'lo' }), f: c({}, 'stop') });
    });
  });

  it('sends text that arrives only in the terminal response before the finish chunk', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const msg = { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [] }] };
      const src = cold(spaced('ab|'), { a: ev.created(), b: ev.completed({ output: [msg] }) });
      expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rxf|)']), { r: role, x: c({ content: 'Hi' }), f: c({}, 'stop') });
    });
  });

  it('ignores text aimed at a function call and arguments aimed at a message', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const src = cold(spaced('abcde|'), { a: ev.created(), b: ev.callAdded(0, 'call_A', 'f'), c: ev.text('stray', 0), d: ev.messageAdded(1), e: ev.args(1, '{}', 'A') });
      expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [25, '|']), { r: roleNull, x: open(0, 'call_A', 'f') });
    });
  });

  it('holds a call whose added item has no name yet: nothing until its .done names it, then the opening chunk and the held arguments in that frame', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const nameless = { type: 'response.output_item.added', output_index: 0, item: { id: 'fc_call_A', type: 'function_call', status: 'in_progress', call_id: 'call_A', name: '', arguments: '' } };
      const src = cold(spaced('abcdef|'), {
        a: ev.created(),
        b: nameless as unknown as ResponseStreamEvent,
        c: ev.args(0, '{"a":', 'call_A'),
        d: ev.args(0, '1}', 'call_A'),
        e: ev.argsDone(0, '{"a":1}', 'call_A', 'f'),
        f: ev.completed({ output: [call('call_A', 'f', '{"a":1}')] }),
      });
      expectObservable(src.pipe(toChatChunks())).toBe(at([20, '(rxy)'], [25, '(z|)']), {
        r: roleNull, x: open(0, 'call_A', 'f'), y: tc(0, { arguments: '{"a":1}' }), z: c({}, 'tool_calls'),
      });
    });
  });

  describe('custom tool calls (type "custom")', () => {
    const sql = customCall('call_C', 'run_sql', 'SELECT 1;');

    it('opens with id, type and the whole name, then sends the input pieces at the frames of their deltas; .done and the closed item add nothing more', () => {
      scheduler().run(({ cold, expectObservable }) => {
        const src = cold(spaced('abcdefg|'), {
          a: ev.created(),
          b: ev.customAdded(0, 'call_C', 'run_sql'),
          c: ev.input(0, 'SELECT ', 'call_C'),
          d: ev.input(0, '1;', 'call_C'),
          e: ev.inputDone(0, 'SELECT 1;', 'call_C'),
          f: ev.customDone(0, 'call_C', 'run_sql', 'SELECT 1;'),
          g: ev.completed({ output: [sql] }),
        });
        expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [10, 'y'], [15, 'z'], [30, '(f|)']), {
          r: roleNull, x: openCustom(0, 'call_C', 'run_sql'), y: ctc(0, { input: 'SELECT ' }), z: ctc(0, { input: '1;' }), f: c({}, 'tool_calls'),
        });
      });
    });

    it.each([
      ['.done', ev.inputDone(0, 'SELECT 1;', 'call_C')],
      ['the closed item', ev.customDone(0, 'call_C', 'run_sql', 'SELECT 1;')],
    ])('sends an input that arrives only whole in %s at its frame, once', (_where, whole) => {
      scheduler().run(({ cold, expectObservable }) => {
        const src = cold(spaced('abcde|'), { a: ev.created(), b: ev.customAdded(0, 'call_C', 'run_sql'), c: whole, d: ev.customDone(0, 'call_C', 'run_sql', 'SELECT 1;'), e: ev.completed({ output: [sql] }) });
        expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [10, 'y'], [20, '(f|)']), {
          r: roleNull, x: openCustom(0, 'call_C', 'run_sql'), y: ctc(0, { input: 'SELECT 1;' }), f: c({}, 'tool_calls'),
        });
      });
    });

    it('emits a custom call that appears only in the terminal output, before the finish chunk', () => {
      scheduler().run(({ cold, expectObservable }) => {
        const src = cold(spaced('ab|'), { a: ev.created(), b: ev.completed({ output: [sql] }) });
        expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rxyf|)']), { r: roleNull, x: openCustom(0, 'call_C', 'run_sql'), y: ctc(0, { input: 'SELECT 1;' }), f: c({}, 'tool_calls') });
      });
    });

    it('numbers function and custom calls densely together, each keeping its own shape, and ignores input aimed at a function call and arguments aimed at a custom call', () => {
      scheduler().run(({ cold, expectObservable }) => {
        const src = cold(spaced('abcdefgh|'), {
          a: ev.created(),
          b: ev.callAdded(0, 'call_F', 'get_time'),
          c: ev.customAdded(1, 'call_C', 'run_sql'),
          d: ev.input(1, 'SELECT 1;', 'call_C'),
          e: ev.args(0, '{"tz":"UTC"}', 'call_F'),
          f: ev.input(0, 'stray', 'call_F'),
          g: ev.args(1, '{}', 'call_C'),
          h: ev.completed({ output: [call('call_F', 'get_time', '{"tz":"UTC"}'), sql] }),
        });
        expectObservable(src.pipe(toChatChunks())).toBe(at([5, '(rx)'], [10, 'y'], [15, 'z'], [20, 'v'], [35, '(f|)']), {
          r: roleNull,
          x: open(0, 'call_F', 'get_time'),
          y: openCustom(1, 'call_C', 'run_sql'),
          z: ctc(1, { input: 'SELECT 1;' }),
          v: tc(0, { arguments: '{"tz":"UTC"}' }),
          f: c({}, 'tool_calls'),
        });
      });
    });

    it('holds a custom call whose added item has no name yet, with its input, until the closed item names it', () => {
      scheduler().run(({ cold, expectObservable }) => {
        const nameless = { type: 'response.output_item.added', output_index: 0, item: { id: 'ctc_call_C', type: 'custom_tool_call', status: 'in_progress', call_id: 'call_C', name: '', input: '' } };
        const src = cold(spaced('abcdef|'), {
          a: ev.created(),
          b: nameless as unknown as ResponseStreamEvent,
          c: ev.input(0, 'SELECT ', 'call_C'),
          d: ev.inputDone(0, 'SELECT 1;', 'call_C'),
          e: ev.customDone(0, 'call_C', 'run_sql', 'SELECT 1;'),
          f: ev.completed({ output: [sql] }),
        });
        expectObservable(src.pipe(toChatChunks())).toBe(at([20, '(rxy)'], [25, '(f|)']), {
          r: roleNull, x: openCustom(0, 'call_C', 'run_sql'), y: ctc(0, { input: 'SELECT 1;' }), f: c({}, 'tool_calls'),
        });
      });
    });

    it('ends with a DecodeError naming the path when a closed custom item\'s input is not a string', () => {
      const bad = { type: 'response.output_item.done', sequence_number: 4, output_index: 0, item: { ...sql, input: 7 } };
      let caught: unknown;
      scheduler().run(({ cold, flush }) => {
        cold('ab', { a: ev.customAdded(0, 'call_C', 'run_sql'), b: bad as unknown as ResponseStreamEvent }).pipe(toChatChunks()).subscribe({ error: (e) => (caught = e) });
        flush();
      });
      expect(caught).toMatchObject({ eventType: 'response.output_item.done', sequenceNumber: 4, path: 'item.input' });
    });
  });
});
