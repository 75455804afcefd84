// JSON mode (section 9.1): a body must be valid JSON; a top-level array is flattened exactly one level into one
// message per element, anything else is one message. Each message is kept as its own text from the body (not
// parsed and serialised again, which would round numbers past 2^53 and reorder nothing else but cost a copy).

export type Flattened = { readonly ok: true; readonly messages: readonly string[] } | { readonly ok: false; readonly reason: string };

/** `allowEmptyArray`: a PUT's `[]` creates an empty stream, a POST's is refused. */
export function flattenJson(text: string, allowEmptyArray: boolean): Flattened {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the body is not valid JSON' };
  }
  if (!Array.isArray(value)) return { ok: true, messages: [text.trim()] };
  if (value.length === 0) return allowEmptyArray ? { ok: true, messages: [] } : { ok: false, reason: 'an empty JSON array appends nothing' };
  return { ok: true, messages: splitTopLevel(text) };
}

/** The elements' texts of a JSON array already known valid: split at the commas outside strings and nesting. */
function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let start = text.indexOf('[') + 1;
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x7d) depth--;
    else if (c === 0x5d) {
      if (depth === 0) {
        out.push(text.slice(start, i).trim());
        break;
      }
      depth--;
    } else if (c === 0x2c && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  return out;
}
