// A body whose reader pushes its chunks (lib/sse/source.ts PushingReader: the gateway's upstream body) is read as
// any other: its text in order, a character cut across chunks joined, the end as `{ complete }`, a failure as a
// NetworkError; an unsubscribe stops the pushing before it cancels (or hands the reader over), so that whoever
// reads the rest reads it.
import { Subscriber, type Subscription } from 'rxjs';
import { NetworkError } from '../../lib/errors';
import { handOverBody, textOf, type BodyEnd, type PushSink } from '../../lib/sse/source';

class PushingBody {
  sink: PushSink | undefined;
  readonly calls: string[] = [];
  getReader(): this {
    return this;
  }
  pushTo(sink: PushSink): void {
    this.calls.push('pushTo');
    this.sink = sink;
  }
  unpush(): void {
    this.calls.push('unpush');
    this.sink = undefined;
  }
  read(): Promise<ReadableStreamReadResult<Uint8Array>> {
    this.calls.push('read');
    return Promise.resolve({ done: true, value: undefined });
  }
  cancel(): Promise<void> {
    this.calls.push('cancel');
    return Promise.resolve();
  }
  releaseLock(): void {}
}

const asStream = (b: PushingBody): ReadableStream<Uint8Array> => b as unknown as ReadableStream<Uint8Array>;

function read(body: PushingBody): { got: (string | BodyEnd)[]; errors: unknown[]; done: () => boolean; sub: Subscription } {
  const got: (string | BodyEnd)[] = [];
  const errors: unknown[] = [];
  let completed = false;
  const sub = textOf(asStream(body)).subscribe({ next: (v) => got.push(v), error: (e) => errors.push(e), complete: () => (completed = true) });
  return { got, errors, done: () => completed, sub };
}

describe('a pushed body', () => {
  it('is read in order, a character cut across chunks joined, then its end', () => {
    const body = new PushingBody();
    const r = read(body);
    expect(body.calls).toEqual(['pushTo']);
    const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
    const e = utf8('é');
    body.sink!.chunk(utf8('data: a'));
    body.sink!.chunk(Uint8Array.from([...utf8('b'), e[0]!]));
    body.sink!.chunk(e.subarray(1));
    body.sink!.end();
    expect(r.got).toEqual(['data: a', 'b', 'é', { complete: true }]);
    expect(r.done()).toBe(true);
    expect(body.calls).toEqual(['pushTo']); // ended: nothing to stop or cancel
  });

  it('takes a chunk of ASCII bytes as its text, and refuses it after a character cut short as the decoding does', () => {
    const body = new PushingBody();
    const r = read(body);
    body.sink!.chunk('data: a');
    body.sink!.chunk(new TextEncoder().encode('é'));
    body.sink!.chunk('\n\n');
    body.sink!.end();
    expect(r.got).toEqual(['data: a', 'é', '\n\n', { complete: true }]);
    // A lead byte then ASCII: as text or as bytes, the same refusal, the body cancelled.
    for (const next of ['b', new TextEncoder().encode('b')]) {
      const cut = new PushingBody();
      const c = read(cut);
      cut.sink!.chunk(Uint8Array.from([0x61, 0xc3]));
      cut.sink!.chunk(next);
      expect(c.got).toEqual(['a']);
      expect(c.errors).toEqual([expect.objectContaining({ name: 'DecodeError', message: expect.stringContaining('invalid UTF-8') })]);
      expect(cut.calls).toEqual(['pushTo', 'unpush', 'cancel']);
    }
  });

  it('fails with a NetworkError, and refuses invalid UTF-8 (cancelling the body)', () => {
    const failing = new PushingBody();
    const a = read(failing);
    failing.sink!.fail(new Error('socket hang up'));
    expect(a.errors[0]).toBeInstanceOf(NetworkError);
    const bad = new PushingBody();
    const b = read(bad);
    bad.sink!.chunk(Uint8Array.from([0xff, 0x41]));
    expect(b.errors).toHaveLength(1);
    expect(bad.calls).toEqual(['pushTo', 'unpush', 'cancel']);
  });

  it('an unsubscribe stops the pushing, then cancels the body or hands its reader over', () => {
    const body = new PushingBody();
    read(body).sub.unsubscribe();
    expect(body.calls).toEqual(['pushTo', 'unpush', 'cancel']);
    const handed = new PushingBody();
    const to: unknown[] = [];
    handOverBody(asStream(handed), (reader) => to.push(reader));
    read(handed).sub.unsubscribe();
    expect(handed.calls).toEqual(['pushTo', 'unpush']);
    expect(to).toEqual([handed]);
  });

  it('what a subscriber throws ends the stream with it, never reaching the pusher (the gateway pushes from a socket listener)', () => {
    const body = new PushingBody();
    const errors: unknown[] = [];
    // A Subscriber of its own (as the gateway's are): rxjs does not catch what its `_next` throws.
    class Throwing extends Subscriber<string | BodyEnd> {
      protected override _next(): void {
        throw new Error('downstream broke');
      }
      protected override _error(e: unknown): void {
        errors.push(e);
        this.unsubscribe();
      }
    }
    textOf(asStream(body)).subscribe(new Throwing());
    expect(() => body.sink!.chunk(new TextEncoder().encode('data: a'))).not.toThrow();
    expect(errors).toEqual([new Error('downstream broke')]);
    expect(body.calls).toEqual(['pushTo', 'unpush', 'cancel']);
  });
});
