// The warm-up objects (lib/warmup.ts): none at import, each made the first time its piece is used, none at all
// with `configure({ warmUp: false })`, which also lets go of those made; the events are the same either way.
import { lastValueFrom, Observable, toArray, type Subscription } from 'rxjs';
import { fixture } from '../helpers/fixtures';

type Root = typeof import('../../index');
type WarmUp = typeof import('../../lib/warmup');
type Shapes = typeof import('../../lib/events/shapes');

/** The package loaded afresh (its own warm-up registry). */
function fresh(): Root & WarmUp & Shapes {
  let m: (Root & WarmUp & Shapes) | undefined;
  jest.isolateModules(() => {
    m = {
      ...(require('../../index') as Root),
      ...(require('../../lib/warmup') as WarmUp),
      ...(require('../../lib/events/shapes') as Shapes),
    };
  });
  if (m === undefined) throw new Error('not loaded');
  return m;
}

const SSE = fixture('function-calls');

/** A stream over HTTP (an in-memory fetch) through the pipeline the benchmark measures. */
function pipeline(rx: Root): Promise<unknown[]> {
  const config = { apiKey: 'sk-test-0000000000', fetch: () => Promise.resolve(new Response(SSE, { headers: { 'content-type': 'text/event-stream' } })) };
  return lastValueFrom(rx.streamResponse({ model: 'm', input: 'hi' }, config).pipe(rx.fanOut(rx.accumulateText(), rx.collectToolCalls()), toArray()));
}

const ALL = ['accumulateText', 'body reader', 'collectToolCalls', 'event relay', 'event skeletons', 'fanOut', 'responses decoding'];

describe('warm-up objects', () => {
  it('are made on first use, not at import', async () => {
    const rx = fresh();
    expect(rx.warmedUp()).toEqual([]);
    await pipeline(rx);
    expect([...rx.warmedUp()].sort()).toEqual(ALL);
    expect(rx.keptShapes().size).toBeGreaterThan(0);
    await lastValueFrom(rx.fromChatCompletionsSSE(fixture('chat-text')).pipe(toArray()));
    expect(rx.warmedUp()).toContain('chat decoding');
    expect([...rx.keptShapes().keys()]).toContain('chat.completion.chunk 0');
    await lastValueFrom(rx.fromChatCompletionsSSE(fixture('chat-text')).pipe(rx.fromChatChunks(), toArray()));
    expect(rx.warmedUp()).toContain('fromChatChunks');
  });

  it('configure({ warmUp: false }) makes none, and the events are the same', async () => {
    const on = fresh();
    const off = fresh();
    off.configure({ warmUp: false });
    const [a, b] = [await pipeline(on), await pipeline(off)];
    expect(b).toEqual(a);
    expect(off.warmedUp()).toEqual([]);
    expect(off.keptShapes().size).toBe(0);
  });

  it('configure({ warmUp: false }) lets go of those made (their subscriptions end); true makes them again on use', async () => {
    const rx = fresh();
    await pipeline(rx);
    const kept: Subscription | undefined = rx.keepWarm('test subscription', () => new Observable<never>(() => undefined).subscribe());
    expect(kept?.closed).toBe(false);
    rx.configure({});
    expect(rx.warmedUp()).toContain('test subscription');
    rx.configure({ warmUp: false });
    expect(kept?.closed).toBe(true);
    expect(rx.warmedUp()).toEqual([]);
    await pipeline(rx);
    expect(rx.warmedUp()).toEqual([]);
    rx.configure({ warmUp: true });
    expect(rx.warmedUp()).toEqual([]);
    await pipeline(rx);
    expect([...rx.warmedUp()].sort()).toEqual(ALL);
  });

  it('a warm-up that throws costs only the warm-up: the stream goes on, and it is not tried again', () => {
    const rx = fresh();
    let tries = 0;
    const broken = (): object => {
      tries++;
      throw new Error('no');
    };
    expect(rx.keepWarm('broken', broken)).toBeUndefined();
    expect(rx.keepWarm('broken', broken)).toBeUndefined();
    expect(tries).toBe(1);
  });
});
