// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with its own .d.ts declarations, with the TypeScript
// compiler alone. The declarations are emitted once and copied into both halves: the same text is read as ES module
// declarations beside dist/esm/package.json ("type": "module") and as CommonJS ones beside dist/cjs/package.json,
// so a node16/nodenext consumer sees each module kind as it is (one copy for both fails: TS1479 in ES projects).
//
//   node scripts/build.mjs             always builds (`npm run build`, and `prepack` before `npm pack` / `npm publish`)
//   node scripts/build.mjs --if-stale  builds only when dist/ is missing or older than its inputs (`pretest`,
//                                      `prestart`, `pretest:browser`: a fresh clone has no dist/)
//
// Source maps (.js.map, .d.ts.map) point at ../../../lib/*.ts, operators/*.ts and cli/*.ts, which the package ships
// (package.json `files`; test/package/pack.spec.ts checks that every map's sources are in the tarball).
//
// The build goes to a directory of its own and replaces dist/ only once it is complete, so that a test run
// reading dist/ at the same time never sees it half-built.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

const STAMP = 'dist/.build-stamp';
const INPUT_DIRS = ['lib', 'operators', 'agent', 'gateway', 'testing', 'angular', 'cli'];
const INPUT_FILES = ['index.ts', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs', 'package.json'];

/** The newest modification time among the build's inputs. */
function newestInput() {
  let newest = 0;
  const visit = (p) => {
    const s = statSync(p);
    if (s.isDirectory()) for (const name of readdirSync(p)) visit(join(p, name));
    else if (s.mtimeMs > newest) newest = s.mtimeMs;
  };
  for (const d of INPUT_DIRS) visit(d);
  for (const f of INPUT_FILES) visit(f);
  return newest;
}

if (process.argv.includes('--if-stale') && existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestInput()) {
  process.exit(0);
}

// Staging and old copies live in node_modules/.cache (ignored by git, on the same file system as dist/ so that
// a rename moves them).
const work = 'node_modules/.cache/openai-rx-build';
mkdirSync(work, { recursive: true });
const stage = `${work}/stage-${process.pid}`;
const started = new Date();
/** Runs tsc with tsconfig.build.json; resolves when it exits 0. */
const tsc = (...args) =>
  new Promise((ok, fail) => {
    const child = spawn(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', ...args], { stdio: 'inherit' });
    child.on('error', fail);
    child.on('exit', (code) => (code === 0 ? ok() : fail(new Error(`tsc ${args.join(' ')} exited with ${code}`))));
  });

/** Every file under `dir`. */
const walk = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]));

try {
  rmSync(stage, { recursive: true, force: true });
  // The ES build type-checks; the other two only emit (--noCheck), all three at once.
  await Promise.all([
    tsc('--module', 'ES2022', '--moduleResolution', 'Bundler', '--outDir', `${stage}/esm`),
    tsc('--noCheck', '--module', 'CommonJS', '--moduleResolution', 'Node10', '--outDir', `${stage}/cjs`),
    tsc('--noCheck', '--declaration', '--declarationMap', '--emitDeclarationOnly', '--outDir', `${stage}/types`),
  ]);
  // The maps were written for the staging directory: make their sources relative to where they will be.
  for (const file of walk(stage).filter((f) => f.endsWith('.map'))) {
    const map = JSON.parse(readFileSync(file, 'utf8'));
    const final = join('dist', relative(stage, file));
    map.sources = map.sources.map((s) => relative(dirname(resolve(final)), resolve(dirname(file), map.sourceRoot ?? '', s)).split('\\').join('/'));
    writeFileSync(file, JSON.stringify(map));
  }
  // Each half gets the declarations beside its .js files (same depth, so the maps' relative sources still hold).
  for (const file of walk(`${stage}/types`)) {
    for (const half of ['esm', 'cjs']) {
      const to = join(stage, half, relative(`${stage}/types`, file));
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(file, to);
    }
  }
  rmSync(`${stage}/types`, { recursive: true, force: true });
  // Each half says what its .js files are, whatever the root package.json says.
  mkdirSync(`${stage}/esm`, { recursive: true });
  writeFileSync(`${stage}/esm/package.json`, '{ "type": "module" }\n');
  writeFileSync(`${stage}/cjs/package.json`, '{ "type": "commonjs" }\n');
  // Dated when the build started: a source saved during the build makes the next --if-stale build again.
  writeFileSync(`${stage}/.build-stamp`, `${started.toISOString()}\n`);
  utimesSync(`${stage}/.build-stamp`, started, started);
} catch (e) {
  rmSync(stage, { recursive: true, force: true });
  console.error(`build failed (${e instanceof Error ? e.message : String(e)}): dist/ is unchanged`);
  process.exit(1);
}

// Swap: the old dist/ moves aside (a rename), the new one takes its place, then the old one goes.
// Another build swapping at the same moment can put its dist/ back in between: then move that one aside too.
const old = `old-${process.pid}`;
for (let attempt = 0; ; attempt++) {
  try {
    if (existsSync('dist')) renameSync('dist', `${work}/${old}-${attempt}`);
    renameSync(stage, 'dist');
    break;
  } catch (e) {
    if (attempt >= 5) throw e;
  }
}
for (const name of readdirSync(work)) if (name.startsWith(`${old}-`)) rmSync(join(work, name), { recursive: true, force: true });
console.log('built dist/esm and dist/cjs, each with its declarations');
