// How a request's secrets are gathered and made ready (lib/redact.ts): which values count, that each counts
// once, and that a secret with a line break is masked line by line. A gateway does this per request, so these
// are written as loops; the behaviour is what the tests pin.
import { headerSecrets, MASK, PreparedSecrets, redactString, secretsOf } from '../../lib/redact';
import { StreamRedactor } from '../../lib/redact-stream';

const KEY = 'sk-proj-Zq7vX2mK9pL4wR8tN3bY6cH1jF5dG0sA';
const CALLER = 'caller-own-key-7h3Kq9Zx2Lm5Pw8R';

describe('secretsOf', () => {
  test('keeps the values of 8 characters or more, each once, in order', () => {
    expect(secretsOf(undefined, KEY, 'short', CALLER, KEY, '', CALLER)).toEqual([KEY, CALLER]);
  });

  test('nothing to keep: an empty list', () => {
    expect(secretsOf()).toEqual([]);
    expect(secretsOf(undefined, 'tiny')).toEqual([]);
  });
});

describe('headerSecrets', () => {
  test('the credential headers, any case: the token after a scheme, else the whole value', () => {
    const headers = { Authorization: `Bearer ${KEY}`, 'X-API-Key': ` ${CALLER} `, 'content-type': 'application/json', 'api-key': 42 };
    expect(headerSecrets(headers)).toEqual([KEY, CALLER]);
  });

  test('no headers, or none that carries a credential', () => {
    expect(headerSecrets(undefined)).toEqual([]);
    expect(headerSecrets({ accept: 'text/event-stream' })).toEqual([]);
  });
});

describe('PreparedSecrets', () => {
  test('each line of a secret on its own, each secret once, lines under 8 characters left out', () => {
    const prepared = new PreparedSecrets([KEY, KEY, 'short', `${CALLER}\r\nsecond-line-secret\nab`]);
    expect(prepared.list.map((p) => p.secret)).toEqual([KEY, CALLER, 'second-line-secret']);
  });

  test('a secret with a line break: each line masked wherever it stands alone', () => {
    const secrets = [`${CALLER}\nsecond-line-secret`];
    const text = `first ${CALLER} then second-line-secret here`;
    expect(redactString(text, secrets)).toBe(`first ${MASK} then ${MASK} here`);
    expect(redactString(text, new PreparedSecrets(secrets))).toBe(redactString(text, secrets));
  });

  test('one prepared set serves many texts and a stream alike', () => {
    const prepared = new PreparedSecrets([KEY]);
    expect(redactString(`x-request-id: ${KEY}`, prepared)).toBe(`x-request-id: ${MASK}`);
    const r = new StreamRedactor(prepared);
    const out = r.push(`{"error":"bad key ${KEY.slice(0, 20)}`) + r.push(`${KEY.slice(20)}"}\n`) + r.end();
    expect(out).not.toContain(KEY.slice(8, 16));
    expect(out).toContain(MASK);
  });
});
