// A request target made canonical before anything is routed: what the route table checks is what goes
// upstream, byte for byte. Fronts (nginx merges slashes, resolves dots; WHATWG URLs turn `\` and `%2e` into
// separators and dots) and upstreams read paths in their own ways; a path with one reading only leaves them
// nothing to disagree about.
import { GatewayHttpError } from './errors.js';

/** A request target, normalised: the decoded path segments, and the query string as the client sent it. */
export interface NormalisedTarget {
  /** Decoded segments: no empty ones, no `.` or `..`, none holding a separator, `%`, or a control character. */
  readonly segments: readonly string[];
  /** `?…` as sent (re-serialised by the URL parser: no raw spaces or controls), or `''`. */
  readonly search: string;
  /** The query, parsed. */
  readonly query: URLSearchParams;
}

/** The one answer to a target that cannot be read one way only: nothing of it is echoed. */
export function unsafePath(): GatewayHttpError {
  return new GatewayHttpError(404, 'No route for this path: the gateway serves the OpenAI API under /v1/.', { code: 'unknown_url' });
}

/** What a decoded segment may not hold: separators, `%` (an upstream decoding twice), NUL and other controls. */
// eslint-disable-next-line no-control-regex
const UNSAFE_DECODED = /[/\\%\u0000-\u001f\u007f]/;
/** What a raw path may not hold at all: a fragment, whitespace and controls (a parser's disagreement). */
// eslint-disable-next-line no-control-regex
const UNSAFE_RAW = /[#\s\u0000-\u001f\u007f]/;

/**
 * The target of `req.url`: repeated slashes and a trailing one dropped, backslashes read as slashes, `.`
 * dropped and `..` applied (never above the first segment: `/v1/..` is refused), each segment percent-decoded
 * once. An encoded separator, dot segment, `%` or control character (`%2F`, `%5C`, `%2E%2E`, `%25`, `%00`), a
 * malformed escape, or a target that is not a path (`http://…`, `*`) is refused with a 404 (`unknown_url`):
 * such a path could mean one thing here and another upstream.
 */
export function normaliseTarget(raw: string): NormalisedTarget {
  if (!raw.startsWith('/')) throw unsafePath();
  const q = raw.indexOf('?');
  const rawPath = q < 0 ? raw : raw.slice(0, q);
  if (UNSAFE_RAW.test(rawPath)) throw unsafePath();
  const segments: string[] = [];
  for (const part of rawPath.replace(/\\/g, '/').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      // Only within the path: popping the first segment (`/v1/../x`) would leave the API's root.
      if (segments.length < 2) throw unsafePath();
      segments.pop();
      continue;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      throw unsafePath();
    }
    // An encoded dot segment reads as `..` to a WHATWG parser or a front that decodes first: refused.
    if (decoded === '.' || decoded === '..' || UNSAFE_DECODED.test(decoded)) throw unsafePath();
    segments.push(decoded);
  }
  const url = new URL(`http://gateway.invalid/${q < 0 ? '' : raw.slice(q)}`);
  return { segments, search: url.search, query: url.searchParams };
}

/** The path of segments as it goes upstream: each segment encoded, so none can change the path's shape. */
export function pathOf(segments: readonly string[]): string {
  return `/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
}
