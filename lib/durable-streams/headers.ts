// The protocol's header names and the syntax checks on what a request sends (the handler's part: a store decides
// every rule about a stream's state). Parsers return `undefined` for absent, or a `{ error }` for malformed (400).

export const H = {
  nextOffset: 'Stream-Next-Offset',
  upToDate: 'Stream-Up-To-Date',
  closed: 'Stream-Closed',
  cursor: 'Stream-Cursor',
  ttl: 'Stream-TTL',
  expiresAt: 'Stream-Expires-At',
  seq: 'Stream-Seq',
  forkedFrom: 'Stream-Forked-From',
  forkOffset: 'Stream-Fork-Offset',
  forkSubOffset: 'Stream-Fork-Sub-Offset',
  sseEncoding: 'Stream-SSE-Data-Encoding',
  producerId: 'Producer-Id',
  producerEpoch: 'Producer-Epoch',
  producerSeq: 'Producer-Seq',
  producerExpectedSeq: 'Producer-Expected-Seq',
  producerReceivedSeq: 'Producer-Received-Seq',
} as const;

/** Everything a browser script may read from a response (CORS `Access-Control-Expose-Headers`). */
export const EXPOSED_HEADERS = [
  H.nextOffset, H.upToDate, H.closed, H.cursor, H.ttl, H.expiresAt, H.sseEncoding,
  H.producerEpoch, H.producerSeq, H.producerExpectedSeq, H.producerReceivedSeq, 'ETag', 'Location', 'Content-Type',
].join(', ');

/** What a browser may send (CORS `Access-Control-Allow-Headers`). */
export const ALLOWED_HEADERS = [
  'Content-Type', 'Authorization', 'If-None-Match', H.ttl, H.expiresAt, H.seq, H.closed, H.forkedFrom, H.forkOffset,
  H.forkSubOffset, H.producerId, H.producerEpoch, H.producerSeq,
].join(', ');

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

export interface ParseError {
  readonly error: string;
}

export function isParseError(value: unknown): value is ParseError {
  return typeof value === 'object' && value !== null && 'error' in value;
}

/** A header's single value (node joins repeated ones with `, `; set-cookie is never asked for). */
export type HeaderValue = string | string[] | undefined;
export function headerText(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value;
}

/** `Stream-Closed` counts only as exactly `true`, any case; other values are as if absent (section 4.1). */
export function isClosedHeader(value: HeaderValue): boolean {
  return headerText(value)?.trim().toLowerCase() === 'true';
}

/** The media type without parameters, lowercased: `Application/JSON; charset=utf-8` → `application/json`. */
export function mediaType(contentType: string): string {
  const semi = contentType.indexOf(';');
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

export function isJsonType(contentType: string): boolean {
  return mediaType(contentType) === 'application/json';
}

/** SSE carries text/* and JSON as they are; any other type base64-encoded (section 5.8). */
export function isSseTextType(contentType: string): boolean {
  const type = mediaType(contentType);
  return type === 'application/json' || type.startsWith('text/');
}

/** `Stream-TTL`: a decimal integer without sign, leading zeros, point or exponent. */
export function parseTtl(value: HeaderValue): number | ParseError | undefined {
  const text = headerText(value);
  if (text === undefined) return undefined;
  if (!/^(0|[1-9]\d{0,14})$/.test(text)) return { error: 'Stream-TTL must be a non-negative decimal integer' };
  return Number(text);
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** `Stream-Expires-At`: an RFC 3339 timestamp, kept as given. */
export function parseExpiresAt(value: HeaderValue): string | ParseError | undefined {
  const text = headerText(value);
  if (text === undefined) return undefined;
  if (!RFC3339.test(text) || Number.isNaN(Date.parse(text))) return { error: 'Stream-Expires-At must be an RFC 3339 timestamp' };
  return text;
}

/** A non-negative integer no larger than 2^53-1, in plain decimal. */
export function parseSafeInteger(text: string): number | undefined {
  if (!/^\d{1,16}$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The three producer headers: all or none (section 5.2.1). */
export function parseProducer(
  id: HeaderValue, epoch: HeaderValue, seq: HeaderValue,
): { readonly id: string; readonly epoch: number; readonly seq: number } | ParseError | undefined {
  const [idText, epochText, seqText] = [headerText(id), headerText(epoch), headerText(seq)];
  if (idText === undefined && epochText === undefined && seqText === undefined) return undefined;
  if (idText === undefined || epochText === undefined || seqText === undefined) {
    return { error: 'Producer-Id, Producer-Epoch and Producer-Seq must be sent together' };
  }
  if (idText.length === 0) return { error: 'Producer-Id must not be empty' };
  const e = parseSafeInteger(epochText.trim());
  const s = parseSafeInteger(seqText.trim());
  if (e === undefined) return { error: 'Producer-Epoch must be a non-negative integer' };
  if (s === undefined) return { error: 'Producer-Seq must be a non-negative integer' };
  return { id: idText, epoch: e, seq: s };
}
