/** @jest-environment ./test/angular/environment.js */
import { zoneless } from './setup';
import { createEnvironmentInjector, EnvironmentInjector } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { Subject, VirtualTimeScheduler } from 'rxjs';
import { responseSignals } from '../../angular/index';
import * as t from 'io-ts';
import { DecodeError, RefusalError, ResponseStreamError, StreamInterruptedError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import * as ev from '../operators/events';

type E = ResponseStreamEvent;

/** A scripted answer: reasoning, text in three deltas, a function call, completion. */
function script() {
  const call = ev.fc('fc_1', 'call_1', 'lookup');
  return {
    head: [ev.created(), ev.itemAdded(0, { id: 'rs_1', type: 'reasoning', summary: [] }), ev.summaryDelta('rs_1', 0, 0, 'Thinking.'), ev.summaryDone('rs_1', 0, 0, 'Thinking.'),
      ev.itemAdded(1, ev.msg('msg_1')), ev.partAdded('msg_1', 1, 0)],
    deltas: [ev.textDelta('msg_1', 1, 0, 'Let me '), ev.textDelta('msg_1', 1, 0, 'look that '), ev.textDelta('msg_1', 1, 0, 'up.')],
    tail: [ev.textDone('msg_1', 1, 0, 'Let me look that up.'), ev.itemDone(1, ev.msg('msg_1', [ev.textPart('Let me look that up.')], 'completed')),
      ev.itemAdded(2, call), ev.argsDelta('fc_1', 2, '{"q":'), ev.argsDelta('fc_1', 2, '"rx"}'), ev.argsDone('fc_1', 2, '{"q":"rx"}'),
      ev.itemDone(2, ev.fc('fc_1', 'call_1', 'lookup', '{"q":"rx"}', 'completed')),
      ev.completed([{ id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thinking.' }] }, ev.msg('msg_1', [ev.textPart('Let me look that up.')], 'completed'), ev.fc('fc_1', 'call_1', 'lookup', '{"q":"rx"}', 'completed')])],
  };
}

beforeEach(() => zoneless());

describe('responseSignals', () => {
  test('signal values follow a scripted stream: text, reasoning, tool calls, response, status', () => {
    const events = new Subject<E>();
    const answer = TestBed.runInInjectionContext(() => responseSignals(events));
    expect(answer.status()).toBe('streaming');
    expect(answer.text()).toBe('');
    const s = script();
    s.head.forEach((e) => events.next(e));
    expect(answer.reasoning()).toBe('Thinking.');
    s.deltas.slice(0, 2).forEach((e) => events.next(e));
    expect(answer.text()).toBe('Let me look that ');
    expect(answer.response()?.status).toBe('in_progress');
    events.next(s.deltas[2]!);
    s.tail.slice(0, 4).forEach((e) => events.next(e));
    expect(answer.text()).toBe('Let me look that up.');
    expect(answer.toolCalls()).toEqual([expect.objectContaining({ type: 'function_call', state: 'partial', name: 'lookup', outputIndex: 2 })]);
    s.tail.slice(4).forEach((e) => events.next(e));
    expect(answer.toolCalls()).toEqual([expect.objectContaining({ type: 'function_call', state: 'complete', arguments: '{"q":"rx"}' })]);
    expect(answer.status()).toBe('streaming'); // the source has not completed yet
    events.complete();
    expect(answer.status()).toBe('done');
    expect(answer.response()?.status).toBe('completed');
    expect(answer.response()?.output).toHaveLength(3);
    expect(answer.error()).toBeUndefined();
  });

  test('smooth: the text is paced, and the tool call and the final status wait for the text before them', () => {
    const scheduler = new VirtualTimeScheduler();
    const events = new Subject<E>();
    const answer = TestBed.runInInjectionContext(() => responseSignals(events, { smooth: { scheduler, delayMs: 10 } }));
    const s = script();
    [...s.head, ...s.deltas, ...s.tail].forEach((e) => events.next(e));
    events.complete();
    // At time 0 only the first word is out; the call and completion are held behind the rest of the text.
    expect(answer.text()).toBe('Let ');
    expect(answer.toolCalls()).toEqual([]);
    expect(answer.status()).toBe('streaming');
    scheduler.flush();
    expect(answer.text()).toBe('Let me look that up.');
    expect(answer.toolCalls()).toEqual([expect.objectContaining({ state: 'complete' })]);
    expect(answer.status()).toBe('done');
  });

  test('an error: the text received so far, then status error with the error', () => {
    const events = new Subject<E>();
    const answer = TestBed.runInInjectionContext(() => responseSignals(events, { smooth: { delayMs: 1000 } }));
    const s = script();
    [...s.head, ...s.deltas].forEach((e) => events.next(e));
    const cut = new StreamInterruptedError('resp_1', 8);
    events.error(cut);
    expect(answer.text()).toBe('Let me look that up.');
    expect(answer.status()).toBe('error');
    expect(answer.error()).toBe(cut);
  });

  test('a response.failed passed as a value (errorEvents: value) ends with status error, not done', () => {
    const events = new Subject<E>();
    const answer = TestBed.runInInjectionContext(() => responseSignals(events));
    events.next(ev.created());
    events.next(ev.itemAdded(0, ev.msg('msg_1')));
    events.next(ev.textDelta('msg_1', 0, 0, 'Half'));
    events.next(ev.failed());
    events.complete();
    expect(answer.text()).toBe('Half');
    expect(answer.status()).toBe('error');
    expect(answer.error()).toBeInstanceOf(ResponseStreamError);
    expect(answer.error()).toEqual(expect.objectContaining({ code: 'server_error', eventType: 'response.failed' }));
    expect(answer.response()?.status).toBe('failed');
  });

  test('the subscription is released when the injection context is destroyed', () => {
    const events = new Subject<E>();
    const parent = TestBed.inject(EnvironmentInjector);
    const child = createEnvironmentInjector([], parent);
    const answer = responseSignals(events, { injector: child });
    events.next(ev.created());
    expect(events.observed).toBe(true);
    child.destroy();
    expect(events.observed).toBe(false);
    expect(answer.status()).toBe('cancelled');
  });

  test('stop(): unsubscribes, status cancelled', () => {
    const events = new Subject<E>();
    const answer = TestBed.runInInjectionContext(() => responseSignals(events));
    answer.stop();
    expect(events.observed).toBe(false);
    expect(answer.status()).toBe('cancelled');
    expect(answer.error()).toBeUndefined();
  });

  test('outside an injection context, without an injector: Angular says so', () => {
    expect(() => responseSignals(new Subject<E>())).toThrow(/injection context/);
  });

  describe('with a codec', () => {
    const Card = t.type({ title: t.string, tags: t.array(t.string) });
    const json = (events: Subject<E>, pieces: string[]) => {
      events.next(ev.created());
      events.next(ev.itemAdded(0, ev.msg('msg_1')));
      for (const p of pieces) events.next(ev.textDelta('msg_1', 0, 0, p));
    };

    test('partial follows the JSON as it streams; object is the decoded value once complete', () => {
      const events = new Subject<E>();
      const answer = TestBed.runInInjectionContext(() => responseSignals(events, { codec: Card }));
      expect(answer.partial()).toBeUndefined();
      json(events, ['{"title":"Ca', 'rds","tags":["a"']);
      expect(answer.partial()).toEqual({ title: 'Cards', tags: ['a'] });
      expect(answer.object()).toBeUndefined();
      events.next(ev.textDelta('msg_1', 0, 0, ']}'));
      events.next(ev.completed());
      events.complete();
      expect(answer.object()).toEqual({ title: 'Cards', tags: ['a'] });
      expect(answer.status()).toBe('done');
      expect(answer.error()).toBeUndefined();
      expect(answer.text()).toBe('{"title":"Cards","tags":["a"]}');
    });

    test("the codec's rejection and a refusal are errors, never an object", () => {
      const events = new Subject<E>();
      const answer = TestBed.runInInjectionContext(() => responseSignals(events, { codec: Card }));
      json(events, ['{"title":"x","tags":[1]}']);
      events.next(ev.completed());
      expect(answer.status()).toBe('error');
      expect(answer.error()).toBeInstanceOf(DecodeError);
      expect((answer.error() as DecodeError).path).toBe('tags[0]');
      expect(answer.object()).toBeUndefined();

      const refused = new Subject<E>();
      const other = TestBed.runInInjectionContext(() => responseSignals(refused, { codec: Card }));
      refused.next(ev.itemAdded(0, ev.msg('msg_1')));
      refused.next(ev.refusalDone('msg_1', 0, 0, 'No.'));
      expect(other.status()).toBe('error');
      expect(other.error()).toBeInstanceOf(RefusalError);
      expect((other.error() as RefusalError).refusal).toBe('No.');
    });

    test('without a codec there are no object signals', () => {
      const answer = TestBed.runInInjectionContext(() => responseSignals(new Subject<E>()));
      expect('partial' in answer).toBe(false);
      expect('object' in answer).toBe(false);
    });
  });
});
