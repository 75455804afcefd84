// Builds dist/esm (ES modules), dist/cjs (CommonJS) and dist/types (.d.ts) with the TypeScript compiler alone.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';

const tsc = (...args) => execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', ...args], { stdio: 'inherit' });

rmSync('dist', { recursive: true, force: true });
tsc('--module', 'ES2022', '--moduleResolution', 'Bundler', '--outDir', 'dist/esm');
tsc('--module', 'CommonJS', '--moduleResolution', 'Node10', '--outDir', 'dist/cjs');
tsc('--declaration', '--emitDeclarationOnly', '--outDir', 'dist/types');
// Each half says what its .js files are, whatever the root package.json says.
mkdirSync('dist/esm', { recursive: true });
writeFileSync('dist/esm/package.json', '{ "type": "module" }\n');
writeFileSync('dist/cjs/package.json', '{ "type": "commonjs" }\n');
console.log('built dist/esm, dist/cjs, dist/types');
