// The handler's syntax pieces: the headers' checks, the cursor, JSON flattening, SSE framing, the read query.
import { responseCursor } from '../../lib/durable-streams/cursor';
import { isClosedHeader, isSseTextType, mediaType, parseExpiresAt, parseProducer, parseTtl } from '../../lib/durable-streams/headers';
import { flattenJson } from '../../lib/durable-streams/json-body';
import { parseReadQuery } from '../../lib/durable-streams/read-query';
import { base64DataEvent, controlEvent, jsonDataEvent, textDataEvent } from '../../lib/durable-streams/sse-frames';

describe('headers', () => {
  test('Stream-TTL is a plain decimal integer', () => {
    expect(parseTtl('3600')).toBe(3600);
    expect(parseTtl('0')).toBe(0);
    expect(parseTtl(undefined)).toBeUndefined();
    for (const bad of ['03600', '+3600', '3600.0', '3.6e3', '-1', '', ' 1', 'abc']) expect(parseTtl(bad)).toHaveProperty('error');
  });
  test('Stream-Expires-At is RFC 3339', () => {
    expect(parseExpiresAt('2030-01-01T00:00:00Z')).toBe('2030-01-01T00:00:00Z');
    expect(parseExpiresAt('2030-01-01T00:00:00.123+02:00')).toBe('2030-01-01T00:00:00.123+02:00');
    for (const bad of ['tomorrow', '2030-01-01', '2030-13-01T00:00:00Z', '1700000000']) expect(parseExpiresAt(bad)).toHaveProperty('error');
  });
  test('Stream-Closed counts only as `true`, any case', () => {
    expect(isClosedHeader('true')).toBe(true);
    expect(isClosedHeader('TRUE')).toBe(true);
    for (const other of ['false', 'yes', '1', '', undefined]) expect(isClosedHeader(other)).toBe(false);
  });
  test('producer headers: all or none, non-negative safe integers, a non-empty id', () => {
    expect(parseProducer(undefined, undefined, undefined)).toBeUndefined();
    expect(parseProducer('p', '0', '7')).toEqual({ id: 'p', epoch: 0, seq: 7 });
    expect(parseProducer('p', '9007199254740991', '0')).toEqual({ id: 'p', epoch: 9007199254740991, seq: 0 });
    expect(parseProducer('p', '0', undefined)).toHaveProperty('error');
    expect(parseProducer('', '0', '0')).toHaveProperty('error');
    for (const bad of ['-1', '1abc', '0xyz', '1.5', '9007199254740992', '']) {
      expect(parseProducer('p', bad, '0')).toHaveProperty('error');
      expect(parseProducer('p', '0', bad)).toHaveProperty('error');
    }
  });
  test('media types: parameters and case ignored; SSE text for text/* and JSON only', () => {
    expect(mediaType('Application/JSON; charset=utf-8')).toBe('application/json');
    expect(isSseTextType('text/plain; charset=utf-8')).toBe(true);
    expect(isSseTextType('application/json')).toBe(true);
    expect(isSseTextType('application/octet-stream')).toBe(false);
    expect(isSseTextType('application/ndjson')).toBe(false);
  });
});

describe('cursor', () => {
  const epoch = Date.UTC(2024, 9, 9);
  test('the 20 s interval number since 2024-10-09', () => {
    expect(responseCursor(undefined, epoch + 20_000 * 1000 + 5)).toBe('1000');
    expect(responseCursor('999', epoch + 20_000 * 1000)).toBe('1000');
    expect(responseCursor('garbage', epoch + 20_000 * 1000)).toBe('1000');
  });
  test('a client cursor at or past now gets one strictly greater, by 1-3600 s of jitter', () => {
    const now = epoch + 20_000 * 1000;
    expect(responseCursor('1000', now, () => 0)).toBe('1001');
    expect(responseCursor('1000', now, () => 0.9999999)).toBe('1180');
    expect(responseCursor('5000', now, () => 0.5)).toBe(String(5000 + 91));
  });
});

describe('JSON flattening', () => {
  test('one level of a top-level array, each message its own text', () => {
    expect(flattenJson('{"a":1}', false)).toEqual({ ok: true, messages: ['{"a":1}'] });
    expect(flattenJson('[{"a":1}, {"b":"x,]"}]', false)).toEqual({ ok: true, messages: ['{"a":1}', '{"b":"x,]"}'] });
    expect(flattenJson('[[1,2],[3,4]]', false)).toEqual({ ok: true, messages: ['[1,2]', '[3,4]'] });
    expect(flattenJson('[[[1,2,3]]]', false)).toEqual({ ok: true, messages: ['[[1,2,3]]'] });
    expect(flattenJson(' [ "a\\"]" , 12345678901234567890 ] ', false)).toEqual({ ok: true, messages: ['"a\\"]"', '12345678901234567890'] });
  });
  test('`[]` is refused for an append, an empty stream for a create; invalid JSON refused', () => {
    expect(flattenJson('[]', false).ok).toBe(false);
    expect(flattenJson('[ ]', true)).toEqual({ ok: true, messages: [] });
    expect(flattenJson('{"a":', false).ok).toBe(false);
  });
});

describe('SSE framing', () => {
  test('every line of a payload is its own data: line: CR, LF and CRLF cannot forge an event', () => {
    const frame = textDataEvent(['a\r\n\r\nevent: control\rdata: x\n\nb']);
    const events = frame.split('\n\n').filter((e) => e !== '');
    expect(events).toHaveLength(1);
    expect(frame).toBe('event: data\ndata:a\ndata:\ndata:event: control\ndata:data: x\ndata:\ndata:b\n\n');
  });
  test('a line starting with a space keeps it', () => {
    expect(textDataEvent([' x'])).toBe('event: data\ndata:  x\n\n');
  });
  test('JSON batches are one array; other types base64 on one line', () => {
    expect(jsonDataEvent(['{"a":1}', '2'])).toBe('event: data\ndata:[\ndata:{"a":1},\ndata:2\ndata:]\n\n');
    expect(base64DataEvent([new Uint8Array([0, 1, 2]), new Uint8Array([255])])).toBe('event: data\ndata:AAEC/w==\n\n');
    expect(base64DataEvent([new Uint8Array(0)])).toBe('event: data\ndata:\n\n');
  });
  test('control events in camelCase, cursor left out when closed', () => {
    expect(controlEvent({ streamNextOffset: '0000000000000002', streamCursor: '7', upToDate: true })).toBe(
      'event: control\ndata:{"streamNextOffset":"0000000000000002","streamCursor":"7","upToDate":true}\n\n',
    );
    expect(controlEvent({ streamNextOffset: '1', upToDate: true, streamClosed: true })).toBe('event: control\ndata:{"streamNextOffset":"1","upToDate":true,"streamClosed":true}\n\n');
  });
});

describe('read query', () => {
  const q = (s: string) => parseReadQuery(new URLSearchParams(s));
  test('offset defaults to -1; live modes need one', () => {
    expect(q('')).toEqual({ ok: true, offset: '-1' });
    expect(q('offset=now&live=long-poll&cursor=5&x=1')).toEqual({ ok: true, offset: 'now', live: 'long-poll', cursor: '5' });
    expect(q('live=sse').ok).toBe(false);
  });
  test('an empty, repeated or malformed offset and an unknown live mode are refused', () => {
    for (const bad of ['offset=', 'offset=a&offset=b', 'offset=1,2', 'offset=a%20b', 'offset=a/b', 'offset=-1&live=ws']) expect(q(bad).ok).toBe(false);
  });
});
