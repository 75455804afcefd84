// A body relayed as it streams is masked piece by piece (lib/redact-stream.ts): wherever the pieces are cut, no
// run of 8 of the key's characters gets out, JSON stays JSON, a text without credentials goes out byte for byte,
// and what is held back stays bounded however large the body or a token in it.
import { isAscii } from 'node:buffer';
import fc from 'fast-check';
import { redactString } from '../../lib/redact';
import { StreamRedactor } from '../../lib/redact-stream';
import { params } from './harness';
import { fragmentIn } from './leaks';

const KEY = 'sk-proj-Zq7vX2mK9pL4wR8tN3bY6cH1jF5dG0sA';
const SECRET_PART = KEY.slice('sk-proj-'.length);
const CALLER = 'caller-own-key-7h3Kq9Zx2Lm5Pw8R';
const MOST_HELD = 200;

/** The text given in the pieces that `cuts` (positions) make, masked. */
function streamed(text: string, cuts: number[], secrets: readonly string[] = [KEY, CALLER]): { out: string; held: number } {
  const r = new StreamRedactor(secrets);
  const at = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
  let out = '';
  let prev = 0;
  let held = 0;
  for (const c of [...at, text.length]) {
    out += r.push(text.slice(prev, c));
    held = Math.max(held, r.held);
    prev = c;
  }
  return { out: out + r.end(), held };
}

/** Every way of cutting `text` in two and in three (around `near`, every position within 80 of it). */
function* cutsOf(text: string, near: number): Generator<number[]> {
  for (let i = Math.max(0, near - 80); i <= Math.min(text.length, near + 80); i++) {
    yield [i];
    yield [i, i + 1];
    yield [i, i + 7];
  }
}

const pieces = [
  'Incorrect API key provided: ', KEY, 'sk-proj-****************************dG0sA', `${KEY.slice(0, 20)}…`, `…${KEY.slice(-12)}`,
  'Bearer ', `Bearer ${CALLER}`, CALLER.slice(3, 20), 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpM',
  'sess-AbCdEfGhIjKlMnOpQrStUvWx', ' ', '"', ',', '\n', '\\n', '\\"', '\\u00e9', 'hello world', 'task-runner-12345678', '{"a":1}',
  '   ', 'x'.repeat(70), 'é', '😀',
];

/** The pieces whose credentials end at a separator (no cut key at their start or end). */
const separated = pieces.filter((p) => !/^[\\…]|…$/.test(p));

describe('StreamRedactor: a body masked as it streams', () => {
  test('the API\'s 401 echo, cut anywhere into two or three pieces, keeps no run of 8 of the key', () => {
    const body = JSON.stringify({
      error: { message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    });
    for (const cuts of cutsOf(body, body.indexOf(KEY))) {
      const { out } = streamed(body, cuts);
      expect(fragmentIn(out, SECRET_PART)).toBeUndefined();
      expect(() => JSON.parse(out) as unknown).not.toThrow();
      expect(out).toBe(redactString(body, [KEY, CALLER]));
    }
  });

  test('any text of keys, cut keys, tokens and escapes, cut anywhere: no run of 8 of a secret, none of a shape', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 30 }), fc.array(fc.nat(2000), { maxLength: 12 }), (parts, cuts) => {
        const text = parts.join('');
        const { out, held } = streamed(text, cuts);
        expect(fragmentIn(out, SECRET_PART)).toBeUndefined();
        expect(fragmentIn(out, CALLER)).toBeUndefined();
        expect(held).toBeLessThanOrEqual(MOST_HELD);
      }),
      params(400),
    );
  });

  test('where every credential ends at a separator, the output is what redactString gives the whole text', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...separated), { maxLength: 25 }), fc.array(fc.nat(2000), { maxLength: 12 }), (parts, cuts) => {
        const text = parts.join(' ');
        const { out } = streamed(text, cuts);
        expect(out).toBe(redactString(text, [KEY, CALLER]));
        expect(out).not.toMatch(/SflKxwRJSMeKKF2QT4fwpM|AbCdEfGhIjKlMnOp/);
      }),
      params(400),
    );
  });

  test('JSON with credentials in its strings is still JSON once masked, cut anywhere', () => {
    const str = fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((p) => p.join(''));
    fc.assert(
      fc.property(fc.dictionary(fc.string({ maxLength: 6 }), str, { maxKeys: 6 }), fc.array(fc.nat(600), { maxLength: 10 }), (obj, cuts) => {
        const text = JSON.stringify({ data: obj, list: Object.values(obj) });
        const { out } = streamed(text, cuts);
        expect(() => JSON.parse(out) as unknown).not.toThrow();
        expect(fragmentIn(out, SECRET_PART)).toBeUndefined();
      }),
      params(300),
    );
  });

  test('a text without credentials goes out unchanged, cut anywhere', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.array(fc.nat(400), { maxLength: 10 }), (text, cuts) => {
        fc.pre(redactString(text, [KEY, CALLER]) === text);
        expect(streamed(text, cuts).out).toBe(text);
      }),
      params(300),
    );
  });

  test('a megabyte-long sk- token is masked whole and what is held stays bounded', () => {
    const token = `sk-${'a'.repeat(1 << 20)}`;
    const text = `before ${token} after ${KEY} end`;
    const cuts: number[] = [];
    for (let i = 1000; i < text.length; i += 4093) cuts.push(i);
    const { out, held } = streamed(text, cuts);
    expect(out).toBe('before [redacted] after [redacted] end');
    expect(held).toBeLessThanOrEqual(MOST_HELD);
  }, 60_000);

  test('pieces of one character each: the key and a bearer token are masked', () => {
    const text = `{"message":"Bearer ${CALLER} and ${KEY}"}`;
    const r = new StreamRedactor([KEY, CALLER]);
    let out = '';
    for (const ch of text) out += r.push(ch);
    out += r.end();
    expect(out).toBe('{"message":"Bearer [redacted] and [redacted]"}');
  });

  test('a known key with no sk- shape (a caller key from authorize), cut into runs across pieces', () => {
    const text = `x ${CALLER.slice(0, 9)} y ${CALLER.slice(5)} z ${CALLER} w`;
    for (const cuts of cutsOf(text, text.length / 2)) {
      expect(fragmentIn(streamed(text, cuts).out, CALLER)).toBeUndefined();
    }
  });
});

describe('redactString: the shapes of a credential, the key known or not', () => {
  test.each([
    ['an sk-proj- key', `key ${KEY}.`, 'key [redacted].'],
    ["the API's starred echo", 'Incorrect API key provided: sk-proj-********************************dG0sA. You can', 'Incorrect API key provided: [redacted]. You can'],
    ['an sess- key', 'token sess-AbCdEfGhIjKlMnOpQrStUvWx here', 'token [redacted] here'],
    ['a JWT', 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpM end', 'jwt [redacted] end'],
    ['a JWT-like token without dots', 'k=eyJrIjoiT0tTcG1pUlY2RnVKZTFVaDFsNFZXdE9ZWmNrMkZYbk', 'k=[redacted]'],
    ['a bearer token', 'Authorization: Bearer user-alice-token', 'Authorization: Bearer [redacted]'],
    ['a key after a JSON \\n', '{"m":"line\\nsk-live-OTHERKEY99887766554433"}', '{"m":"line\\n[redacted]"}'],
    ['a bearer token after a JSON \\n', '{"m":"x\\nBearer abcdefgh12345"}', '{"m":"x\\nBearer [redacted]"}'],
  ])('%s', (_what, text, masked) => {
    expect(redactString(text)).toBe(masked);
  });

  test('a mask never splits a JSON escape: the text still parses', () => {
    // The secret begins with the letter of an escape (\n) and with the hex of a \u escape.
    const secrets = ['nABCDEFGHIJKLMNOP', '00e9QRSTUVWXYZ0123'];
    for (const text of ['{"m":"a\\nABCDEFGHIJKLMNOP b"}', '{"m":"a\\u00e9QRSTUVWXYZ0123 b"}', '{"m":"\\\\nABCDEFGHIJKLMNOP"}']) {
      const out = redactString(text, secrets);
      expect(out).toContain('[redacted]');
      expect(() => JSON.parse(out) as unknown).not.toThrow();
    }
  });
});

describe('StreamRedactor: nothing held past a line break', () => {
  test('an SSE event goes out whole as soon as its blank line has come, masked', () => {
    const r = new StreamRedactor([KEY]);
    const event = `event: error\ndata: {"type":"error","message":"Incorrect API key provided: ${KEY}"}\n\n`;
    expect(r.push(event)).toBe('event: error\ndata: {"type":"error","message":"Incorrect API key provided: [redacted]"}\n\n');
    expect(r.push('event: response.output_text.delta\ndata: {"delta":"hi"}\n\n')).toBe('event: response.output_text.delta\ndata: {"delta":"hi"}\n\n');
    expect(r.end()).toBe('');
  });

  test('once an event\'s blank line has come, nothing of it is kept: the line break alone is looked behind', () => {
    const r = new StreamRedactor([KEY, CALLER]);
    const delta = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"plain words"}\n\n';
    for (let i = 0; i < 3; i++) {
      expect(r.push(delta)).toBe(delta);
      expect(r.held).toBe(1);
    }
    // As bytes too (a piece past the bytes test's threshold).
    const long = Buffer.from(delta.repeat(12), 'latin1');
    expect(r.pushBytes(long).toString('latin1')).toBe(long.toString('latin1'));
    expect(r.held).toBe(1);
    // A key's end, cut at a word's edge, at the start of the next line is still known to start a word.
    expect(r.push(`data: ${KEY.slice(-6)} and ${CALLER.slice(0, 5)}\n`)).toBe('data: [redacted] and [redacted]\n');
  });

  test('lines cut at their breaks or anywhere, keys and shapes at either end of a line: what redactString gives the whole', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.constantFrom(...separated, 'Bearer', 'Basic'), { maxLength: 5 }), { maxLength: 12 }), fc.array(fc.nat(600), { maxLength: 6 }), (lines, more) => {
        const text = lines.map((l) => l.join(' ')).join('\n');
        const breaks = [...text.matchAll(/\n/g)].map((m) => m.index + 1);
        const { out } = streamed(text, [...breaks, ...more]);
        expect(out).toBe(redactString(text, [KEY, CALLER]));
      }),
      params(400),
    );
  });

  test('Bearer and its token on either side of a line break at a piece\'s end: the token is still masked', () => {
    const r = new StreamRedactor([]);
    const out = r.push('auth: Bearer\n') + r.push(`${'x'.repeat(3)} Bearer `) + r.push('abcdefgh12345678 tail\n') + r.end();
    expect(out).toBe('auth: Bearer\nxxx Bearer [redacted] tail\n');
  });
});

describe('StreamRedactor.pushBytes: a body\'s bytes masked as push masks their text', () => {
  /**
   * A body's bytes in pieces through pushBytes, and its text (latin1) in the same pieces through push: the same out.
   * `latin1`: the pieces as the gateway's reader gives them (an ASCII piece with its text through pushLatin1).
   */
  function both(text: string, cuts: number[], secrets: readonly string[]): { bytes: string; text: string; latin1: string } {
    const body = Buffer.from(text, 'utf8');
    const latin = secrets.map((s) => Buffer.from(s, 'utf8').toString('latin1'));
    const a = new StreamRedactor(latin);
    const b = new StreamRedactor(latin);
    const at = [...new Set(cuts.map((c) => Math.min(c, body.length)))].sort((x, y) => x - y);
    const c = new StreamRedactor(latin);
    const outA: Buffer[] = [];
    let outB = '';
    let outC = '';
    let prev = 0;
    for (const cut of [...at, body.length]) {
      const piece = body.subarray(prev, cut);
      outA.push(a.pushBytes(piece));
      outB += b.push(piece.toString('latin1'));
      if (isAscii(piece)) {
        const out = c.pushLatin1(piece, piece.toString('latin1'));
        // A text only when it is the body's text: every code ASCII.
        if (typeof out === 'string') expect(out).toMatch(/^[\x00-\x7f]*$/);
        outC += typeof out === 'string' ? out : out.toString('latin1');
      } else {
        outC += c.pushBytes(piece).toString('latin1');
      }
      prev = cut;
    }
    outA.push(Buffer.from(a.end(), 'latin1'));
    return { bytes: Buffer.concat(outA as unknown as Uint8Array[]).toString('latin1'), text: outB + b.end(), latin1: outC + c.end() };
  }

  // Long plain stretches (pieces past the bytes test's threshold) around keys, cut keys, shapes and escapes.
  const filler = 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":"msg_bench","delta":"plain words "}\n\n';
  const near = [...pieces, 'sk-bench', 'msg_bench', ' bench', 'k-bench', 'sk-b ', 'clé-sécrète-42', 'BeArEr ', 'basic understanding', '\\\\', 'yJ'];

  test('any text, whole or cut anywhere (pieces of every size, secrets across their cuts): the same bytes out', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...near), fc.nat(30).map((n) => filler.repeat(n))), { maxLength: 14 }),
        fc.array(fc.nat(9000), { maxLength: 10 }),
        fc.subarray([KEY, CALLER, 'sk-bench', 'clé-sécrète-ünïcødé-42']),
        (parts, cuts, secrets) => {
          const text = parts.join('');
          const whole = both(text, [], secrets);
          expect(whole.bytes).toBe(whole.text);
          expect(whole.latin1).toBe(whole.text);
          const cut = both(text, cuts, secrets);
          expect(cut.bytes).toBe(cut.text);
          expect(cut.latin1).toBe(cut.text);
        },
      ),
      params(400),
    );
  });

  test('a secret cut at every position by the end of a long piece: masked as one', () => {
    for (const secret of [KEY, 'sk-bench']) {
      for (const item of [secret, secret.slice(0, 5), secret.slice(-5), `Bearer ${secret}`]) {
        const text = `${filler.repeat(12)} ${item} ${filler.repeat(2)}`;
        const at = Buffer.byteLength(`${filler.repeat(12)} `);
        for (let c = at - 70; c <= at + item.length + 70; c++) {
          const r = both(text, [c], [secret]);
          expect(r.bytes).toBe(r.text);
          expect(r.latin1).toBe(r.text);
          expect(r.bytes).toBe(Buffer.from(redactString(text, [secret]), 'utf8').toString('latin1'));
        }
      }
    }
  });
});
