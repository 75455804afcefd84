/** @jest-environment ./test/angular/environment.js */
import { zoneless } from './setup';
import { Component, createEnvironmentInjector, EnvironmentInjector } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import * as t from 'io-ts';
import { Subject } from 'rxjs';
import { injectResponse } from '../../angular/index';
import { StreamInterruptedError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { startTestServer, textTranscript, type TestServer } from '../../testing';
import * as ev from '../operators/events';

type E = ResponseStreamEvent;

/** A stream function handing out one Subject per send, recorded with its input. */
function scripted() {
  const sends: Array<{ input: string; events: Subject<E> }> = [];
  const stream = (input: string) => {
    const events = new Subject<E>();
    sends.push({ input, events });
    return events;
  };
  return { sends, stream };
}

const answer = (events: Subject<E>, words: string[], id = 'resp_1') => {
  events.next(ev.created(id));
  events.next(ev.itemAdded(0, ev.msg('msg_1')));
  for (const w of words) events.next(ev.textDelta('msg_1', 0, 0, w));
};

beforeEach(() => zoneless());

describe('injectResponse with a scripted stream', () => {
  test('send: streaming, the text as it grows, done', () => {
    const s = scripted();
    const chat = TestBed.runInInjectionContext(() => injectResponse({ stream: s.stream, smooth: false }));
    expect(chat.status()).toBe('idle');
    chat.send('Hi');
    expect(s.sends.map((x) => x.input)).toEqual(['Hi']);
    expect(chat.status()).toBe('streaming');
    expect(chat.busy()).toBe(true);
    expect(chat.input()).toBe('Hi');
    answer(s.sends[0]!.events, ['Hello', ' there']);
    expect(chat.text()).toBe('Hello there');
    s.sends[0]!.events.next(ev.completed());
    s.sends[0]!.events.complete();
    expect(chat.status()).toBe('done');
    expect(chat.busy()).toBe(false);
  });

  test('smoothing is opt-in, as for responseSignals: by default the signals follow the stream as it comes', () => {
    const s = scripted();
    const chat = TestBed.runInInjectionContext(() => injectResponse({ stream: s.stream }));
    chat.send('Hi');
    answer(s.sends[0]!.events, ['Hello', ' there, ', 'friend']);
    expect(chat.text()).toBe('Hello there, friend');
    s.sends[0]!.events.next(ev.completed());
    s.sends[0]!.events.complete();
    expect(chat.status()).toBe('done');
  });

  test('a new send cancels the one in flight and starts from a blank answer', () => {
    const s = scripted();
    const chat = TestBed.runInInjectionContext(() => injectResponse({ stream: s.stream, smooth: false }));
    chat.send('first');
    answer(s.sends[0]!.events, ['One']);
    chat.send('second');
    expect(s.sends[0]!.events.observed).toBe(false); // the first request is released
    expect(chat.text()).toBe('');
    expect(chat.status()).toBe('streaming');
    answer(s.sends[1]!.events, ['Two']);
    s.sends[0]!.events.next(ev.textDelta('msg_1', 0, 0, ' late')); // nobody listens to the old one any more
    expect(chat.text()).toBe('Two');
    expect(chat.input()).toBe('second');
  });

  test('stop() is a cancellation (cancelled, no error); a dropped connection is an error', () => {
    const s = scripted();
    const chat = TestBed.runInInjectionContext(() => injectResponse({ stream: s.stream, smooth: false }));
    chat.send('a');
    answer(s.sends[0]!.events, ['Partial']);
    chat.stop();
    expect(s.sends[0]!.events.observed).toBe(false);
    expect(chat.status()).toBe('cancelled');
    expect(chat.error()).toBeUndefined();
    expect(chat.text()).toBe('Partial');

    chat.send('b');
    answer(s.sends[1]!.events, ['Cut']);
    const dropped = new StreamInterruptedError('resp_1', 3);
    s.sends[1]!.events.error(dropped);
    expect(chat.status()).toBe('error');
    expect(chat.error()).toBe(dropped);
    expect(chat.text()).toBe('Cut');
  });

  test('retry() asks the last input again', () => {
    const s = scripted();
    const chat = TestBed.runInInjectionContext(() => injectResponse({ stream: s.stream, smooth: false }));
    chat.retry(); // nothing sent yet: nothing to retry
    expect(s.sends).toHaveLength(0);
    chat.send('again?');
    s.sends[0]!.events.error(new StreamInterruptedError('resp_1', 0));
    chat.retry();
    expect(s.sends.map((x) => x.input)).toEqual(['again?', 'again?']);
    expect(chat.status()).toBe('streaming');
    expect(chat.error()).toBeUndefined();
  });

  test('resume: a dropped connection is resumed from the last event (resumeFrom), the answer completes', () => {
    const s = scripted();
    const reconnects: Array<{ responseId: string; sequenceNumber: number }> = [];
    const rest = new Subject<E>();
    const chat = TestBed.runInInjectionContext(() =>
      injectResponse({ stream: s.stream, smooth: false, resume: { reconnect: (c) => (reconnects.push(c), rest), delayMs: 0 } }),
    );
    chat.send('q');
    const first = s.sends[0]!.events;
    answer(first, ['Hello']);
    const last = ev.textDelta('msg_1', 0, 0, ' wor');
    first.next(last);
    first.error(new StreamInterruptedError('resp_1', last.sequence_number));
    return new Promise<void>((done) => setTimeout(done, 10)).then(() => {
      expect(chat.reconnecting()).toBe(true);
      expect(chat.status()).toBe('streaming');
      expect(reconnects).toEqual([{ responseId: 'resp_1', sequenceNumber: last.sequence_number }]);
      rest.next(ev.textDelta('msg_1', 0, 0, 'ld'));
      expect(chat.reconnecting()).toBe(false);
      rest.next(ev.completed());
      rest.complete();
      expect(chat.text()).toBe('Hello world');
      expect(chat.status()).toBe('done');
    });
  });

  test('stop() while a dropped connection is being resumed: cancelled, not error, and the resumed stream released', () => {
    const s = scripted();
    const rest = new Subject<E>();
    const chat = TestBed.runInInjectionContext(() => injectResponse({ stream: s.stream, smooth: false, resume: { reconnect: () => rest, delayMs: 0 } }));
    chat.send('q');
    answer(s.sends[0]!.events, ['Hello']);
    s.sends[0]!.events.error(new StreamInterruptedError('resp_1', 2));
    return new Promise<void>((done) => setTimeout(done, 10)).then(() => {
      expect(chat.reconnecting()).toBe(true);
      expect(rest.observed).toBe(true);
      chat.stop();
      expect(rest.observed).toBe(false);
      expect(chat.status()).toBe('cancelled');
      expect(chat.reconnecting()).toBe(false);
      expect(chat.error()).toBeUndefined();
      expect(chat.text()).toBe('Hello');
    });
  });

  test('destroying the injection context cancels the answer in flight', () => {
    const s = scripted();
    const child = createEnvironmentInjector([], TestBed.inject(EnvironmentInjector));
    const chat = injectResponse({ stream: s.stream, injector: child });
    chat.send('x');
    child.destroy();
    expect(s.sends[0]!.events.observed).toBe(false);
    expect(chat.status()).toBe('cancelled');
  });

  test('after the injection context is destroyed, send() and retry() open nothing (no request left behind)', () => {
    const s = scripted();
    const child = createEnvironmentInjector([], TestBed.inject(EnvironmentInjector));
    const chat = injectResponse({ stream: s.stream, injector: child });
    chat.send('x');
    child.destroy();
    chat.send('late');
    chat.retry();
    expect(s.sends.map((x) => x.input)).toEqual(['x']);
    expect(s.sends[0]!.events.observed).toBe(false);
    expect(chat.status()).toBe('cancelled');
  });

  test("a relative baseURL ('/api/v1', the page's own backend) is taken from the page's address", () => {
    const urls: string[] = [];
    const fetch = ((url: string | URL | Request) => {
      urls.push(String(url));
      return Promise.reject(new TypeError('offline'));
    }) as typeof globalThis.fetch;
    const chat = TestBed.runInInjectionContext(() => injectResponse({ baseURL: '/api/v1', model: 'm', fetch, smooth: false }));
    chat.send('Hi');
    return new Promise<void>((done) => setTimeout(done, 20)).then(() => {
      expect(urls).toEqual([`${location.origin}/api/v1/responses`]);
      expect(chat.status()).toBe('error');
    });
  });

  test('without stream or baseURL: a clear error, at once', () => {
    expect(() => TestBed.runInInjectionContext(() => injectResponse({}))).toThrow(/^baseURL: pass `stream` or `baseURL`/);
    expect(() => TestBed.runInInjectionContext(() => injectResponse({ stream: () => new Subject<E>(), resume: true }))).toThrow(/^resume: without a `reconnect` it needs `baseURL`/);
  });
});

describe('injectResponse against a loopback server (real fetch, SSE and resume)', () => {
  const WORDS = ['Streams ', 'are ', 'values ', 'over ', 'time, ', 'composed ', 'with ', 'operators.'];
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ transcripts: { text: textTranscript({ responseId: 'resp_loop', deltas: WORDS }) }, chunkSize: 64, chunkDelayMs: 2 });
  });
  afterAll(() => server.close());

  const until = async (check: () => boolean, what: string) => {
    for (const t0 = Date.now(); !check(); ) {
      if (Date.now() - t0 > 15_000) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  test('the whole answer arrives, smoothed, in a zoneless component', async () => {
    @Component({ selector: 'chat-box', template: '<p>{{ chat.text() }}</p><i>{{ chat.status() }}</i>' })
    class ChatBox {
      readonly chat = injectResponse({ baseURL: server.baseURL, model: 'gpt-5.4-nano', smooth: { delayMs: 2 } });
    }
    const fixture = TestBed.createComponent(ChatBox);
    fixture.componentInstance.chat.send('Why streams?');
    const seen = new Set<string>();
    await until(() => {
      seen.add(fixture.componentInstance.chat.text());
      return fixture.componentInstance.chat.status() === 'done';
    }, 'the answer');
    await fixture.whenStable();
    const el = fixture.nativeElement as HTMLElement;
    expect(el.querySelector('p')?.textContent).toBe(WORDS.join(''));
    expect(el.querySelector('i')?.textContent).toBe('done');
    expect(seen.size).toBeGreaterThan(2); // it grew in steps
    const req = server.requests[server.requests.length - 1]!;
    expect(req.body).toEqual(expect.objectContaining({ model: 'gpt-5.4-nano', input: 'Why streams?', stream: true }));
  });

  test('stop() closes the upstream request', async () => {
    server.inject({ type: 'stall', afterEvents: 6 });
    const chat = TestBed.runInInjectionContext(() => injectResponse({ baseURL: server.baseURL, smooth: false }));
    const index = server.requests.length;
    chat.send('stall');
    await until(() => chat.text() !== '', 'the first words');
    chat.stop();
    const closed = await server.waitForClose(index);
    expect(closed.outcome).toBe('client-closed');
    expect(chat.status()).toBe('cancelled');
    expect(chat.error()).toBeUndefined();
  });

  test('a dropped connection: an error without resume; with resume, the rest from the backend and the whole text', async () => {
    server.inject({ type: 'drop', afterEvents: 7 });
    const plain = TestBed.runInInjectionContext(() => injectResponse({ baseURL: server.baseURL, smooth: false }));
    plain.send('drop');
    await until(() => plain.status() !== 'streaming', 'the drop');
    expect(plain.status()).toBe('error');
    expect(plain.error()).toBeInstanceOf(StreamInterruptedError);

    server.inject({ type: 'drop', afterEvents: 7 });
    const index = server.requests.length;
    const resumed = TestBed.runInInjectionContext(() => injectResponse({ baseURL: server.baseURL, smooth: false, resume: { delayMs: 5 } }));
    resumed.send('drop');
    await until(() => resumed.status() !== 'streaming', 'the resumed answer');
    expect(resumed.error()).toBeUndefined();
    expect(resumed.status()).toBe('done');
    expect(resumed.text()).toBe(WORDS.join(''));
    const again = server.requests[index + 1]!;
    expect(again.route).toBe('responses.stream');
    expect(again.path).toBe('/v1/responses/resp_loop');
    expect(Number(again.query['starting_after'])).toBeGreaterThanOrEqual(5);
  });
});

describe('injectResponse with a codec against a loopback server', () => {
  const Card = t.type({ title: t.string, tags: t.array(t.string) });
  const PIECES = ['{"title":"Str', 'eams","ta', 'gs":["rx",', '"signals"]}'];
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ transcripts: { text: textTranscript({ responseId: 'resp_card', deltas: PIECES }) }, chunkSize: 64, chunkDelayMs: 2 });
  });
  afterAll(() => server.close());

  test('partial fills in, object is the decoded card at the end, in a zoneless component', async () => {
    @Component({ selector: 'card-box', template: '<h1>{{ chat.partial()?.title }}</h1><i>{{ chat.object()?.tags?.length }}</i>' })
    class CardBox {
      readonly chat = injectResponse({ baseURL: server.baseURL, model: 'gpt-5.4-nano', codec: Card });
    }
    const fixture = TestBed.createComponent(CardBox);
    const chat = fixture.componentInstance.chat;
    const partials: unknown[] = [];
    chat.send('A card');
    for (const t0 = Date.now(); chat.status() === 'streaming'; ) {
      if (Date.now() - t0 > 15_000) throw new Error('timed out waiting for the card');
      if (partials[partials.length - 1] !== chat.partial()) partials.push(chat.partial());
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(chat.error()).toBeUndefined();
    expect(chat.status()).toBe('done');
    expect(chat.object()).toEqual({ title: 'Streams', tags: ['rx', 'signals'] });
    await fixture.whenStable();
    const el = fixture.nativeElement as HTMLElement;
    expect(el.querySelector('h1')?.textContent).toBe('Streams');
    expect(el.querySelector('i')?.textContent).toBe('2');
    chat.send('Again');
    expect(chat.partial()).toBeUndefined(); // a new send starts from a blank answer
    expect(chat.object()).toBeUndefined();
  });
});
