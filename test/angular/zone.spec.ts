/** @jest-environment ./test/angular/zone-environment.js */
// openai-rx/angular under Zone.js change detection (the other specs are zoneless). Zone.js patches this file's
// globals only: jest gives every test file its own environment, and zone-environment.js checks at teardown that
// nothing outside it was patched. The templates bind the signals; the assertions read the rendered page.
import 'zone.js';
import 'zone.js/testing';
import './setup'; // TestBed's platform, once per file
import { Component, NgZone, provideZoneChangeDetection } from '@angular/core';
import { type ComponentFixture, TestBed } from '@angular/core/testing';
import * as t from 'io-ts';
import { Subject } from 'rxjs';
import { injectResponse, responseSignals } from '../../angular/index';
import { StreamInterruptedError } from '../../lib/errors';
import type { ResponseStreamEvent } from '../../lib/events/responses';
import { streamResponse } from '../../lib/http/transports';
import { startTestServer, textTranscript, type TestServer } from '../../testing';
import * as ev from '../operators/events';

type E = ResponseStreamEvent;

beforeEach(() => TestBed.configureTestingModule({ providers: [provideZoneChangeDetection()] }));

const rendered = (fixture: ComponentFixture<unknown>, selector: string) => (fixture.nativeElement as HTMLElement).querySelector(selector)?.textContent ?? null;
const click = (fixture: ComponentFixture<unknown>, selector: string) => (fixture.nativeElement as HTMLElement).querySelector<HTMLButtonElement>(selector)!.click();

/** Waits (on real time, generously) until `check` holds, calling it every 5 ms. */
const until = async (check: () => boolean, what: string) => {
  for (const t0 = Date.now(); !check(); ) {
    if (Date.now() - t0 > 15_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

test('Zone.js runs change detection here: the test body is in the ProxyZone, NgZone is a real zone', () => {
  expect(Zone.current.name).toBe('ProxyZone');
  const ngZone = TestBed.inject(NgZone);
  expect(ngZone.run(() => NgZone.isInAngularZone())).toBe(true);
  expect(NgZone.isInAngularZone()).toBe(false);
});

describe('responseSignals under Zone.js, scripted', () => {
  let events: Subject<E>;
  @Component({ selector: 'one-answer', template: '<p>{{ answer.text() }}</p><i>{{ answer.status() }}</i><b>{{ answer.toolCalls().length }}</b>' })
  class OneAnswer {
    readonly answer = responseSignals(events);
  }
  beforeEach(() => (events = new Subject<E>()));

  test('events inside the Angular zone and outside it (as after a native await) both reach the page (autoDetect)', async () => {
    const fixture = TestBed.createComponent(OneAnswer);
    fixture.autoDetectChanges();
    await fixture.whenStable();
    expect(rendered(fixture, 'i')).toBe('streaming');
    const ngZone = TestBed.inject(NgZone);
    ngZone.run(() => [ev.created(), ev.itemAdded(0, ev.msg('msg_1')), ev.textDelta('msg_1', 0, 0, 'Inside ')].forEach((e) => events.next(e)));
    expect(rendered(fixture, 'p')).toBe('Inside '); // leaving the Angular zone ran change detection, at once
    // Outside the Angular zone: no zone task tells Angular; the signal writes schedule the change detection.
    ngZone.runOutsideAngular(() => events.next(ev.textDelta('msg_1', 0, 0, 'and outside.')));
    await until(() => rendered(fixture, 'p') === 'Inside and outside.', 'a write outside the zone to render');
    ngZone.runOutsideAngular(() => {
      events.next(ev.itemAdded(1, ev.fc('fc_1', 'call_1', 'lookup')));
      events.next(ev.completed());
      events.complete();
    });
    await until(() => rendered(fixture, 'i') === 'done', 'status done');
    expect(rendered(fixture, 'b')).toBe('1');
    expect(fixture.componentInstance.answer.response()?.status).toBe('completed');
  });

  test('fixture.detectChanges renders the signals as they are; an error shows the text so far and status error', () => {
    const fixture = TestBed.createComponent(OneAnswer);
    fixture.detectChanges();
    [ev.created(), ev.itemAdded(0, ev.msg('msg_1')), ev.textDelta('msg_1', 0, 0, 'Half an ')].forEach((e) => events.next(e));
    fixture.detectChanges();
    expect(rendered(fixture, 'p')).toBe('Half an ');
    expect(rendered(fixture, 'i')).toBe('streaming');
    events.error(new StreamInterruptedError('resp_1', 2));
    fixture.detectChanges();
    expect(rendered(fixture, 'p')).toBe('Half an ');
    expect(rendered(fixture, 'i')).toBe('error');
    expect(fixture.componentInstance.answer.error()).toBeInstanceOf(StreamInterruptedError);
  });

  test('destroying the component releases the subscription', () => {
    const fixture = TestBed.createComponent(OneAnswer);
    fixture.detectChanges();
    expect(events.observed).toBe(true);
    const answer = fixture.componentInstance.answer;
    fixture.destroy();
    expect(events.observed).toBe(false);
    expect(answer.status()).toBe('cancelled');
  });
});

describe('injectResponse under Zone.js, scripted, driven by clicks', () => {
  let sends: Array<{ input: string; events: Subject<E> }>;
  @Component({
    selector: 'chat-box',
    template: `<button class="send" (click)="chat.send('q' + (chat.input()?.length ?? 0))">Send</button>
      <button class="stop" (click)="chat.stop()">Stop</button><p>{{ chat.text() }}</p><i>{{ chat.status() }}</i>
      @if (chat.error()) { <em>error</em> }`,
  })
  class ChatBox {
    readonly chat = injectResponse({
      smooth: false,
      stream: (input: string) => {
        const events = new Subject<E>();
        sends.push({ input, events });
        return events;
      },
    });
  }
  beforeEach(() => (sends = []));

  const words = (events: Subject<E>, ...ws: string[]) => {
    events.next(ev.created());
    events.next(ev.itemAdded(0, ev.msg('msg_1')));
    for (const w of ws) events.next(ev.textDelta('msg_1', 0, 0, w));
  };

  test('a click is a zone task: send and stop render without a manual change detection; stop is cancelled, a drop is an error', async () => {
    const fixture = TestBed.createComponent(ChatBox);
    fixture.autoDetectChanges();
    await fixture.whenStable();
    expect(rendered(fixture, 'i')).toBe('idle');
    click(fixture, '.send');
    expect(rendered(fixture, 'i')).toBe('streaming'); // the click's zone task ended with a change detection
    words(sends[0]!.events, 'Partial');
    await until(() => rendered(fixture, 'p') === 'Partial', 'the text');
    click(fixture, '.stop');
    expect(sends[0]!.events.observed).toBe(false);
    expect(rendered(fixture, 'i')).toBe('cancelled');
    expect(rendered(fixture, 'em')).toBeNull();

    click(fixture, '.send');
    expect(rendered(fixture, 'p')).toBe('');
    words(sends[1]!.events, 'Cut');
    sends[1]!.events.error(new StreamInterruptedError('resp_1', 3));
    await until(() => rendered(fixture, 'i') === 'error', 'status error');
    expect(rendered(fixture, 'p')).toBe('Cut');
    expect(rendered(fixture, 'em')).toBe('error');
  });

  test('a new send cancels the one in flight; destroying the component cancels the answer in flight', async () => {
    const fixture = TestBed.createComponent(ChatBox);
    fixture.autoDetectChanges();
    click(fixture, '.send');
    words(sends[0]!.events, 'One');
    click(fixture, '.send');
    expect(sends.map((s) => s.input)).toEqual(['q0', 'q2']);
    expect(sends[0]!.events.observed).toBe(false);
    words(sends[1]!.events, 'Two');
    await until(() => rendered(fixture, 'p') === 'Two', 'the second answer');
    const chat = fixture.componentInstance.chat;
    fixture.destroy();
    expect(sends[1]!.events.observed).toBe(false);
    expect(chat.status()).toBe('cancelled');
  });
});

describe('under Zone.js against a loopback server (real fetch and SSE)', () => {
  const WORDS = ['Zones ', 'track ', 'tasks; ', 'signals ', 'track ', 'values; ', 'both ', 'render.'];
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ transcripts: { text: textTranscript({ responseId: 'resp_zone', deltas: WORDS }) }, chunkSize: 64, chunkDelayMs: 2 });
  });
  afterAll(() => server.close());

  @Component({
    selector: 'zone-chat',
    template: `<button class="send" (click)="chat.send('Why zones?')">Send</button><button class="stop" (click)="chat.stop()">Stop</button>
      <p>{{ chat.text() }}</p><i>{{ chat.status() }}</i>`,
  })
  class ZoneChat {
    static options: Parameters<typeof injectResponse>[0] = {};
    readonly chat = injectResponse({ baseURL: server.baseURL, model: 'gpt-5.4-nano', ...ZoneChat.options });
  }
  const chatBox = (options: Parameters<typeof injectResponse>[0]) => {
    ZoneChat.options = options;
    const fixture = TestBed.createComponent(ZoneChat);
    fixture.autoDetectChanges();
    return fixture;
  };

  test('injectResponse: the page shows the answer growing, then all of it, smoothed', async () => {
    const fixture = chatBox({ smooth: { delayMs: 2 } });
    click(fixture, '.send');
    const seen = new Set<string>();
    await until(() => (seen.add(rendered(fixture, 'p') ?? ''), rendered(fixture, 'i') === 'done'), 'the answer');
    // And Zone-stable: nothing of the answer is left pending in the Angular zone.
    await fixture.whenStable();
    expect(TestBed.inject(NgZone).hasPendingMacrotasks).toBe(false);
    expect(rendered(fixture, 'p')).toBe(WORDS.join(''));
    expect(seen.size).toBeGreaterThan(2); // the page showed it in steps
    expect(server.requests[server.requests.length - 1]!.body).toEqual(expect.objectContaining({ input: 'Why zones?', stream: true }));
  });

  test('responseSignals over streamResponse: the page shows the whole answer and done', async () => {
    @Component({ selector: 'zone-answer', template: '<p>{{ answer.text() }}</p><i>{{ answer.status() }}</i>' })
    class ZoneAnswer {
      readonly answer = responseSignals(streamResponse({ model: 'gpt-5.4-nano', input: 'Hi' }, { baseURL: server.baseURL }), { smooth: { delayMs: 1 } });
    }
    const fixture = TestBed.createComponent(ZoneAnswer);
    fixture.autoDetectChanges();
    await until(() => rendered(fixture, 'i') === 'done', 'the answer');
    await fixture.whenStable();
    expect(rendered(fixture, 'p')).toBe(WORDS.join(''));
  });

  test('the Stop button closes the upstream request: cancelled, not an error', async () => {
    server.inject({ type: 'stall', afterEvents: 6 });
    const fixture = chatBox({ smooth: false });
    const index = server.requests.length;
    click(fixture, '.send');
    await until(() => rendered(fixture, 'p') !== '', 'the first words');
    click(fixture, '.stop');
    expect((await server.waitForClose(index)).outcome).toBe('client-closed');
    expect(rendered(fixture, 'i')).toBe('cancelled');
    expect(fixture.componentInstance.chat.error()).toBeUndefined();
    await fixture.whenStable(); // a stop leaves nothing pending in the Angular zone
  });

  test('a dropped connection: status error on the page without resume; with resume, the whole answer', async () => {
    server.inject({ type: 'drop', afterEvents: 7 });
    const plain = chatBox({ smooth: false });
    click(plain, '.send');
    await until(() => rendered(plain, 'i') === 'error', 'the drop');
    expect(plain.componentInstance.chat.error()).toBeInstanceOf(StreamInterruptedError);

    server.inject({ type: 'drop', afterEvents: 7 });
    const resumed = chatBox({ smooth: false, resume: { delayMs: 5 } });
    click(resumed, '.send');
    await until(() => ['done', 'error', 'cancelled'].includes(rendered(resumed, 'i') ?? ''), 'the resumed answer');
    expect(rendered(resumed, 'i')).toBe('done');
    expect(rendered(resumed, 'p')).toBe(WORDS.join(''));
  });

  test('destroying the component mid-answer closes the upstream request', async () => {
    server.inject({ type: 'stall', afterEvents: 6 });
    const fixture = chatBox({ smooth: false });
    const index = server.requests.length;
    click(fixture, '.send');
    await until(() => rendered(fixture, 'p') !== '', 'the first words');
    const chat = fixture.componentInstance.chat;
    fixture.destroy();
    expect((await server.waitForClose(index)).outcome).toBe('client-closed');
    expect(chat.status()).toBe('cancelled');
  });
});

describe('a codec under Zone.js, scripted', () => {
  const Card = t.type({ title: t.string, tags: t.array(t.string) });
  let events: Subject<E>;
  @Component({ selector: 'one-card', template: '<h1>{{ card.partial()?.title }}</h1><i>{{ card.object()?.tags?.join(",") }}</i><b>{{ card.status() }}</b>' })
  class OneCard {
    readonly card = responseSignals(events, { codec: Card });
  }
  beforeEach(() => (events = new Subject<E>()));

  test('the partial card renders as it streams, in and outside the Angular zone; the decoded card at the end', async () => {
    const fixture = TestBed.createComponent(OneCard);
    fixture.autoDetectChanges();
    await fixture.whenStable();
    const ngZone = TestBed.inject(NgZone);
    ngZone.run(() => [ev.created(), ev.itemAdded(0, ev.msg('msg_1')), ev.textDelta('msg_1', 0, 0, '{"title":"Zo')].forEach((e) => events.next(e)));
    expect(rendered(fixture, 'h1')).toBe('Zo');
    expect(rendered(fixture, 'i')).toBe('');
    ngZone.runOutsideAngular(() => events.next(ev.textDelta('msg_1', 0, 0, 'ne","tags":["a","b"]}')));
    await until(() => rendered(fixture, 'h1') === 'Zone', 'a partial written outside the zone to render');
    ngZone.runOutsideAngular(() => {
      events.next(ev.completed());
      events.complete();
    });
    await until(() => rendered(fixture, 'b') === 'done', 'the final card');
    expect(rendered(fixture, 'i')).toBe('a,b');
  });
});
