// Random JSON documents for the property tests of the incremental parser: a tree whose numbers keep the text
// they are written as (every form: -0, 1e5, 1.5E-3, 2e+10), and a serialiser that writes each string's
// characters raw, as a short escape or as a \u escape (surrogate pairs too), compact or indented.
import fc from 'fast-check';

export type Doc =
  | { readonly k: 'number'; readonly text: string }
  | { readonly k: 'literal'; readonly text: 'true' | 'false' | 'null' }
  | { readonly k: 'string'; readonly value: string }
  | { readonly k: 'array'; readonly items: readonly Doc[] }
  | { readonly k: 'object'; readonly entries: ReadonlyArray<readonly [string, Doc]> };

const numberText = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9][0-9]{0,5}$/)),
    fc.option(fc.stringMatching(/^[0-9]{1,4}$/)),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.stringMatching(/^[0-9]{1,2}$/))),
  )
  .map(([minus, int, frac, exp]) => `${minus ? '-' : ''}${int}${frac === null ? '' : `.${frac}`}${exp === null ? '' : exp.join('')}`);

const awkward = fc.constantFrom('"', '\\', '/', '\n', '\t', '\r', '\b', '\f', '\u0001', '\u001f', 'é', '€', '😀', '👍🏽', '\ud800', '\udc00', 'a', ' ');
export const jsonString = fc.oneof(fc.string({ unit: 'binary', maxLength: 10 }), fc.string({ unit: awkward, maxLength: 10 }), fc.string({ unit: 'grapheme', maxLength: 6 }));
const key = fc.oneof({ weight: 4, arbitrary: jsonString }, { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', '0', '10', '') });

const leaf: fc.Arbitrary<Doc> = fc.oneof(
  numberText.map((text) => ({ k: 'number' as const, text })),
  fc.constantFrom('true', 'false', 'null').map((text) => ({ k: 'literal' as const, text })),
  jsonString.map((value) => ({ k: 'string' as const, value })),
);

export const jsonDocument: fc.Arbitrary<Doc> = fc.letrec<{ doc: Doc }>((tie) => ({
  doc: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('doc'), { maxLength: 5 }).map((items) => ({ k: 'array' as const, items })),
    fc.uniqueArray(fc.tuple(key, tie('doc')), { maxLength: 5, selector: (e) => e[0] }).map((entries) => ({ k: 'object' as const, entries })),
  ),
})).doc;

const SHORT: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function stringText(s: string, rand: () => number): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const code = s.charCodeAt(i);
    const mustEscape = ch === '"' || ch === '\\' || code < 0x20;
    const r = rand();
    if (!mustEscape && r < 0.7) out += ch;
    else if (SHORT[ch] !== undefined && r < 0.85) out += SHORT[ch];
    else {
      const hex = code.toString(16).padStart(4, '0');
      out += `\\u${r < 0.92 ? hex : hex.toUpperCase()}`;
    }
  }
  return `${out}"`;
}

/** The document as JSON text: compact, or indented with some extra whitespace (spaces, tabs, CR LF). */
export function serialise(doc: Doc, indent: boolean, rand: () => number, depth = 0): string {
  const nl = (d: number) => (indent ? `${rand() < 0.1 ? '\r\n' : '\n'}${rand() < 0.1 ? '\t'.repeat(d) : '  '.repeat(d)}` : '');
  switch (doc.k) {
    case 'number':
    case 'literal':
      return doc.text;
    case 'string':
      return stringText(doc.value, rand);
    case 'array':
      if (doc.items.length === 0) return indent && rand() < 0.3 ? '[ ]' : '[]';
      return `[${doc.items.map((d) => nl(depth + 1) + serialise(d, indent, rand, depth + 1)).join(',')}${nl(depth)}]`;
    case 'object':
      if (doc.entries.length === 0) return indent && rand() < 0.3 ? '{ }' : '{}';
      return `{${doc.entries.map(([k, d]) => `${nl(depth + 1)}${stringText(k, rand)}${indent ? (rand() < 0.2 ? ' : ' : ': ') : ':'}${serialise(d, indent, rand, depth + 1)}`).join(',')}${nl(depth)}}`;
  }
}

/** The text cut into growing snapshots: mostly a few characters apart, sometimes one, sometimes many. */
export function snapshots(text: string, rand: () => number): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < text.length) {
    const r = rand();
    at = Math.min(text.length, at + (r < 0.3 ? 1 : r < 0.9 ? 1 + Math.floor(rand() * 8) : 1 + Math.floor(rand() * 40)));
    out.push(text.slice(0, at));
  }
  return out;
}
