// What each entry point exports, pinned (issue 26): the runtime names as Node loads them through package.json
// "exports" (the package imports itself by name, `import` from an ES module and `require` from CommonJS: both must
// give the same names) and the type-only names of its declarations (TypeScript's own list, checker.getExportsOfModule).
// The lists are in export-lists/: a name added, removed or moved to another entry is a diff there, in review.
// Also: the codecs entry has the codec of every event type, whose type the root has.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { ensureBuilt, ROOT, run } from './helpers';
import { EXPORTS, type EntryExports } from './export-lists/index';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, string | Record<string, Record<string, string>>>;
};
const ENTRIES = Object.keys(EXPORTS);
const specifier = (subpath: string) => (subpath === '.' ? pkg.name : `${pkg.name}/${subpath.replace(/^\.\//, '')}`);
/** An entry's declaration file in one half of the build, from package.json. */
function declarationsOf(entry: string, condition: 'import' | 'require'): string {
  const subpath = Object.keys(pkg.exports).find((s) => specifier(s) === entry);
  const target = subpath === undefined ? undefined : pkg.exports[subpath];
  const types = typeof target === 'object' ? target[condition]?.['types'] : undefined;
  if (types === undefined) throw new Error(`package.json exports names no ${condition} types for ${entry}`);
  return join(ROOT, types);
}

/** Runs `code` in Node from the repo root (so that `openai-rx/…` resolves through the package's own exports). */
async function namesIn(kind: 'esm' | 'cjs'): Promise<Record<string, string[]>> {
  const load = kind === 'esm' ? 'await import(e)' : 'require(e)';
  const code = `const out = {}; for (const e of ${JSON.stringify(ENTRIES)}) out[e] = Object.keys(${load}).sort(); console.log(JSON.stringify(out));`;
  const args = kind === 'esm' ? ['--input-type=module', '-e', code] : ['-e', code];
  const { stdout } = await run(process.execPath, ['--no-warnings', ...args], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout) as Record<string, string[]>;
}

/** What an exported symbol is: a value unless it is one or an `export type` (anywhere along its re-exports) made it a type only. */
function meaningsOf(checker: ts.TypeChecker, symbol: ts.Symbol): { value: boolean; type: boolean } {
  let s = symbol;
  let typeOnly = false;
  while (s.flags & ts.SymbolFlags.Alias) {
    typeOnly ||= (s.declarations ?? []).some((d) => ts.isTypeOnlyImportOrExportDeclaration(d));
    s = checker.getImmediateAliasedSymbol(s) ?? checker.getAliasedSymbol(s);
    if (s === symbol) break;
  }
  return { value: !typeOnly && (s.flags & ts.SymbolFlags.Value) !== 0, type: (s.flags & ts.SymbolFlags.Type) !== 0 };
}

/** Every name a module exports (values and types) and which of them have a value meaning, per file. */
function exportsOf(files: readonly string[]): Map<string, { all: string[]; values: string[]; types: string[] }> {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022,
    strict: true, skipLibCheck: true, noEmit: true, types: [],
  });
  const checker = program.getTypeChecker();
  const out = new Map<string, { all: string[]; values: string[]; types: string[] }>();
  for (const file of files) {
    const source = program.getSourceFile(file);
    const module = source && checker.getSymbolAtLocation(source);
    if (!module) throw new Error(`TypeScript found no module in ${file}`);
    const symbols = checker.getExportsOfModule(module).map((s) => ({ name: s.name, ...meaningsOf(checker, s) }));
    out.set(file, {
      all: symbols.map((s) => s.name).sort(),
      values: symbols.filter((s) => s.value).map((s) => s.name).sort(),
      types: symbols.filter((s) => s.type).map((s) => s.name).sort(),
    });
  }
  return out;
}

const EVENT_MODULES = ['responses', 'items', 'response', 'websocket', 'chat'].map((m) => join(ROOT, 'dist', 'esm', 'lib', 'events', `${m}.d.ts`));
/** Where the error classes users catch are defined. */
const ERROR_MODULES = ['lib/errors', 'lib/ws/errors', 'agent/errors'].map((m) => join(ROOT, 'dist', 'esm', `${m}.d.ts`));
let esm: Record<string, string[]>;
let cjs: Record<string, string[]>;
let declared: ReturnType<typeof exportsOf>;
beforeAll(async () => {
  await ensureBuilt();
  [esm, cjs] = await Promise.all([namesIn('esm'), namesIn('cjs')]);
  declared = exportsOf([...ENTRIES.flatMap((e) => [declarationsOf(e, 'import'), declarationsOf(e, 'require')]), ...EVENT_MODULES, ...ERROR_MODULES]);
}, 240_000);

/** What the build says an entry exports: runtime names (ES and CommonJS agree) and type-only names. */
function actual(entry: string): EntryExports {
  const values = esm[entry] ?? [];
  const names = declared.get(declarationsOf(entry, 'import'))!.all;
  return { values, types: names.filter((n) => !values.includes(n)) };
}

test('the package has these entries and no others', () => {
  expect(Object.keys(pkg.exports).filter((s) => s !== './package.json').map(specifier).sort()).toEqual([...ENTRIES].sort());
});

describe.each(ENTRIES)('%s', (entry) => {
  test('ES modules and CommonJS export the same names, all declared', () => {
    expect(cjs[entry]).toEqual(esm[entry]);
    expect(declared.get(declarationsOf(entry, 'require'))).toEqual(declared.get(declarationsOf(entry, 'import')));
    const names = declared.get(declarationsOf(entry, 'import'))!;
    expect((esm[entry] ?? []).filter((n) => !names.values.includes(n))).toEqual([]);
    expect(names.values.filter((n) => !(esm[entry] ?? []).includes(n))).toEqual([]);
  });

  test('runtime exports as pinned in export-lists/', () => {
    expect(actual(entry).values).toEqual([...EXPORTS[entry]!.values].sort());
  });

  test('type-only exports as pinned in export-lists/', () => {
    expect(actual(entry).types).toEqual([...EXPORTS[entry]!.types].sort());
  });
});

test('every event codec is in openai-rx/codecs, every event type in openai-rx as a type only', () => {
  const root = actual('openai-rx');
  const codecs = actual('openai-rx/codecs').values;
  for (const file of EVENT_MODULES) {
    const { values, types } = declared.get(file)!;
    expect(values.filter((n) => !codecs.includes(n))).toEqual([]);
    expect(types.filter((n) => !root.types.includes(n))).toEqual([]);
  }
  // The root holds no codec value.
  expect(root.values.filter((n) => codecs.includes(n))).toEqual([]);
});

test('every error class is in openai-rx', () => {
  const root = actual('openai-rx').values;
  for (const file of ERROR_MODULES) {
    const errors = declared.get(file)!.values.filter((n) => /Error$/.test(n));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.filter((n) => !root.includes(n))).toEqual([]);
  }
});
