// The upstream's answers read from a connection's bytes (gateway/http1-response.ts): every framing, however the
// bytes are cut into reads, gives the same head, body and end; what is not HTTP/1.1 is refused by name.
import fc from 'fast-check';
import { Http1Response, Http1ResponseError, type ResponseHead } from '../../gateway/http1-response';

interface Read {
  head?: ResponseHead;
  body: Buffer[];
  ended: boolean;
  reader: Http1Response;
}

function reader(method = 'GET', maxHeadBytes?: number): Read {
  const out: Read = { body: [], ended: false } as unknown as Read;
  out.reader = new Http1Response(
    {
      head: (h) => {
        if (out.head) throw new Error('a second head');
        out.head = h;
      },
      body: (piece) => {
        if (out.ended) throw new Error('body after the end');
        out.body.push(Buffer.from(piece as unknown as Uint8Array));
      },
      end: () => {
        if (out.ended) throw new Error('a second end');
        out.ended = true;
      },
    },
    method,
    maxHeadBytes === undefined ? {} : { maxHeadBytes },
  );
  return out;
}

/** `bytes` pushed in the reads that `cuts` (positions) make of it. */
function feed(r: Read, bytes: Buffer, cuts: number[] = []): void {
  let at = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    if (c <= at || c >= bytes.length) continue;
    r.reader.push(bytes.subarray(at, c));
    at = c;
  }
  if (at < bytes.length) r.reader.push(bytes.subarray(at));
}

const body = (r: Read): string => Buffer.concat(r.body as unknown as Uint8Array[]).toString('latin1');

describe('Http1Response', () => {
  it('reads every framing the same however its bytes are cut', () => {
    const framing = fc.oneof(
      fc.record({ kind: fc.constant('chunked' as const), sizes: fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 8 }), ext: fc.boolean(), trailers: fc.boolean(), upper: fc.boolean() }),
      fc.record({ kind: fc.constant('length' as const), size: fc.integer({ min: 0, max: 600 }) }),
      fc.record({ kind: fc.constant('close' as const), size: fc.integer({ min: 0, max: 600 }) }),
    );
    fc.assert(
      fc.property(framing, fc.boolean(), fc.array(fc.nat(2000), { maxLength: 12 }), (f, early, cuts) => {
        const payload = (n: number, seed: number): string => Array.from({ length: n }, (_, i) => String.fromCharCode(32 + ((i * 7 + seed) % 95))).join('');
        const interim = early ? 'HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n' : '';
        let wire: string;
        let expected: string;
        if (f.kind === 'chunked') {
          const parts = f.sizes.map((n, i) => payload(n, i));
          expected = parts.join('');
          const hex = (n: number): string => (f.upper ? n.toString(16).toUpperCase() : n.toString(16));
          wire = `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${parts.map((p) => `${hex(p.length)}${f.ext ? ';name="v"' : ''}\r\n${p}\r\n`).join('')}0\r\n${f.trailers ? 'X-Trailer: 1\r\nX-Other: 2\r\n' : ''}\r\n`;
        } else {
          expected = payload(f.size, 3);
          wire = `HTTP/1.1 200 OK\r\n${f.kind === 'length' ? `Content-Length: ${f.size}\r\n` : ''}X-A:  spaced value \r\n\r\n${expected}`;
        }
        const bytes = Buffer.from(interim + wire, 'latin1');
        const r = reader();
        feed(r, bytes, cuts);
        if (f.kind === 'close') {
          expect(r.ended).toBe(false);
          r.reader.close();
        }
        expect(r.head?.status).toBe(200);
        expect(body(r)).toBe(expected);
        expect(r.ended).toBe(true);
        expect(r.reader.done).toBe(true);
        expect(r.reader.reusable).toBe(f.kind !== 'close');
        if (f.kind !== 'chunked') expect(r.head?.rawHeaders.slice(-2)).toEqual(['X-A', 'spaced value']);
      }),
      { numRuns: 400 },
    );
  });

  it('hands the body on as views of the bytes read, not copies', () => {
    const pieces: Buffer[] = [];
    const r = new Http1Response({ head: () => undefined, body: (p) => pieces.push(p), end: () => undefined }, 'GET');
    const read = Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n', 'latin1');
    r.push(read);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]!.buffer).toBe(read.buffer);
    expect(pieces[0]!.toString()).toBe('hello');
  });

  it('reads no body for HEAD, 204 and 304, whatever the headers say', () => {
    for (const [method, status] of [['HEAD', 200], ['GET', 204], ['GET', 304]] as const) {
      const r = reader(method);
      feed(r, Buffer.from(`HTTP/1.1 ${status} X\r\nContent-Length: 10\r\n\r\n`, 'latin1'));
      expect(r.ended).toBe(true);
      expect(r.body).toEqual([]);
      expect(r.reader.reusable).toBe(true);
    }
  });

  it('does not reuse a connection the answer or its framing ends', () => {
    const cases: Array<[string, boolean]> = [
      ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', false],
      ['HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n', false],
      ['HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', false],
      ['HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n', true],
      // both framings: the transfer coding's, and not reused
      ['HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n', false],
      // a coding other than chunked last: the body runs to the connection's end
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n', false],
    ];
    for (const [wire, reusable] of cases) {
      const r = reader();
      feed(r, Buffer.from(wire, 'latin1'));
      if (!r.ended) r.reader.close();
      expect([wire, r.reader.reusable]).toEqual([wire, reusable]);
    }
    const extra = reader();
    feed(extra, Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n', 'latin1'));
    expect(body(extra)).toBe('ok');
    expect(extra.reader.reusable).toBe(false);
  });

  it('refuses what is not HTTP/1.1, naming it', () => {
    const refused: Array<[string, RegExp]> = [
      ['HTTP/2 200\r\n\r\n', /the status line/],
      ['HTTP/1.1 99 Low\r\n\r\n', /the status line/],
      ['HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n', /a header line/],
      ['HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n', /a header line/],
      ['HTTP/1.1 200 OK\r\nBad Name: 1\r\n\r\n', /a header line/],
      ['HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n', /the value of X-A/],
      ['HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\n', /content-length/],
      ['HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n', /content-length/],
      ['HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n', /content-length/],
      ['HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n', /101/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', /a chunk size/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n12345678901234\r\n', /a chunk size/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3 x\r\n', /a chunk size/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\n', /CRLF/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcXY', /not followed by CRLF/],
      ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nbad trailer\r\n\r\n', /a trailer line/],
    ];
    for (const [wire, message] of refused) {
      const r = reader();
      let error: unknown;
      try {
        feed(r, Buffer.from(wire, 'latin1'));
      } catch (e) {
        error = e;
      }
      expect([wire, error instanceof Http1ResponseError]).toEqual([wire, true]);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('keeps a head, a size line and trailers within their limits, across reads too', () => {
    const long = reader('GET', 64);
    expect(() => feed(long, Buffer.from(`HTTP/1.1 200 OK\r\nX-A: ${'a'.repeat(80)}\r\n\r\n`, 'latin1'), [10, 40, 70])).toThrow(/a head longer than 64 bytes/);
    const sizeLine = reader();
    expect(() => feed(sizeLine, Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;${'e'.repeat(5000)}`, 'latin1'), [60])).toThrow(/a chunk size line longer/);
    const trailers = reader('GET', 64);
    expect(() => feed(trailers, Buffer.from(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: ${'t'.repeat(80)}`, 'latin1'))).toThrow(/trailers longer/);
  });

  it('refuses a connection that closes before the answer or its body ended', () => {
    const none = reader();
    expect(() => none.reader.close()).toThrow(/closed before an answer/);
    const cut = reader();
    feed(cut, Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', 'latin1'));
    expect(() => cut.reader.close()).toThrow(/closed before the body ended/);
    const chunk = reader();
    feed(chunk, Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab', 'latin1'));
    expect(() => chunk.reader.close()).toThrow(/closed before the body ended/);
    expect(body(chunk)).toBe('ab');
  });
});
