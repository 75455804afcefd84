// Every ```ts block of README.md and docs/*.md is type-checked: it is in test/readme/snippets.ts word for word, which
// `npm run typecheck` compiles. A block's imports are not copied (snippets.ts imports once, at its top): each name a
// block imports must be imported there from the module the block names (mapped to the sources). A block's
// `declare` lines are hoisted there verbatim. A snippet edited in the docs without its copy fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const copies = readFileSync(join(__dirname, 'snippets.ts'), 'utf8');

const FILES = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** Where snippets.ts may import what a reader imports from each module (`openai-rx` re-exports the operators). */
const SOURCES: Record<string, readonly string[]> = {
  'openai-rx': ['../../index.js', '../../operators/index.js'],
  'openai-rx/operators': ['../../operators/index.js'],
  'openai-rx/codecs': ['../../lib/codecs.js'],
  'openai-rx/gateway': ['../../gateway/index.js'],
  'openai-rx/testing': ['../../testing/index.js'],
  'openai-rx/angular': ['../../angular/index.js'],
  'openai-rx/streams': ['../../lib/durable-streams/index.js'],
};

interface Snippet {
  readonly file: string;
  readonly line: number;
  /** The code without its imports and `declare` lines, blank lines at either end trimmed. */
  readonly code: string;
  readonly imports: ReadonlyArray<{ readonly module: string; readonly names: readonly string[] }>;
  readonly declares: readonly string[];
}

/** The ```ts blocks of a markdown text. */
function snippetsOf(file: string, text: string): Snippet[] {
  const out: Snippet[] = [];
  for (const m of text.matchAll(/^```ts\n([\s\S]*?)\n```$/gm)) {
    const line = text.slice(0, m.index).split('\n').length;
    const source = m[1]!;
    const imports: Array<{ module: string; names: string[] }> = [];
    const importRe = /^import\s+([\s\S]*?)\s+from\s+'([^']+)';?[ \t]*$/gm;
    for (const i of source.matchAll(importRe)) imports.push({ module: i[2]!, names: namesOf(i[1]!) });
    const lines = source.replace(importRe, '').split('\n');
    const declares = lines.filter((l) => l.startsWith('declare '));
    const code = lines
      .filter((l) => !l.startsWith('declare '))
      .join('\n')
      .replace(/^(\s*\n)+/, '')
      .replace(/(\n\s*)+$/, '');
    out.push({ file, line, code, imports, declares });
  }
  return out;
}

/** The local names an import clause binds: `{ a, type B, c as d }`, `* as t`, a default. */
function namesOf(clause: string): string[] {
  const names: string[] = [];
  const braces = /\{([\s\S]*)\}/.exec(clause);
  if (braces) {
    for (const part of braces[1]!.split(',')) {
      const p = part.trim().replace(/^type\s+/, '');
      if (p) names.push(p.split(/\s+as\s+/).pop()!);
    }
  }
  const star = /\*\s+as\s+(\w+)/.exec(clause);
  if (star) names.push(`* as ${star[1]}`);
  const def = /^(\w+)\s*(,|$)/.exec(clause.trim());
  if (def && def[1] !== 'type') names.push(def[1]!);
  return names;
}

/** What snippets.ts imports, by the module it names. */
function copiedImports(): Map<string, Set<string>> {
  const byModule = new Map<string, Set<string>>();
  for (const i of copies.matchAll(/^import\s+([\s\S]*?)\s+from\s+'([^']+)';/gm)) {
    const set = byModule.get(i[2]!) ?? new Set<string>();
    for (const n of namesOf(i[1]!)) set.add(n);
    byModule.set(i[2]!, set);
  }
  return byModule;
}

const ALL = FILES.flatMap((f) => snippetsOf(f, readFileSync(join(root, f), 'utf8')));

test('the guides hold the snippets (this test reads them)', () => {
  expect(ALL.length).toBeGreaterThan(15);
  const files = new Set(ALL.map((s) => s.file));
  for (const f of ['README.md', 'docs/angular.md', 'docs/gateway.md', 'docs/agents.md', 'docs/transports.md']) expect(files).toContain(f);
});

test.each(ALL.map((s) => [`${s.file}:${s.line}`, s] as const))('%s is in snippets.ts word for word', (_, s) => {
  expect(s.code.length).toBeGreaterThan(0);
  if (!copies.includes(s.code)) throw new Error(`${s.file}:${s.line}: not in test/readme/snippets.ts word for word:\n${s.code}`);
  for (const d of s.declares) expect(copies).toContain(d);
});

test.each(ALL.filter((s) => s.imports.length > 0).map((s) => [`${s.file}:${s.line}`, s] as const))('%s: what it imports, snippets.ts imports from the same module', (_, s) => {
  const imported = copiedImports();
  const missing: string[] = [];
  for (const { module, names } of s.imports) {
    const sources = SOURCES[module] ?? [module];
    for (const n of names) if (!sources.some((m) => imported.get(m)?.has(n))) missing.push(`${n} from '${module}'`);
  }
  expect(missing).toEqual([]);
});

test('a snippet edited without its copy is caught', () => {
  const [s] = snippetsOf('x.md', "```ts\nimport { outputText } from 'openai-rx';\n\nstreamResponse(x).pipe(outputText(), somethingNew());\n```\n");
  expect(s!.code).toBe('streamResponse(x).pipe(outputText(), somethingNew());');
  expect(copies.includes(s!.code)).toBe(false);
  expect(namesOf('{ a, type B, c as d }')).toEqual(['a', 'B', 'd']);
  expect(namesOf('* as t')).toEqual(['* as t']);
});
