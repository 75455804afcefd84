// Summarises a .cpuprofile (node --cpu-prof): top functions by self time, with file:line and percentages.
// node bench/profile.mjs <file.cpuprofile> [top=25] [filter substring for a second "within" table]
import { readFileSync } from 'node:fs';

const [file, topArg = '25'] = process.argv.slice(2);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const dt = new Map();
// samples[i] was taken timeDeltas[i+1] before the next one: charge each sample its following interval
for (let i = 0; i < prof.samples.length; i++) {
  const d = prof.timeDeltas[i + 1] ?? 0;
  dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + d);
}
const total = [...dt.values()].reduce((a, b) => a + b, 0);
const self = new Map();
for (const [id, t] of dt) {
  const cf = byId.get(id).callFrame;
  const url = cf.url.replace(/^file:\/\//, '').replace(/^.*\/(dist|node_modules)\//, '$1/');
  const key = `${cf.functionName || '(anonymous)'}  ${url ? `${url}:${cf.lineNumber + 1}` : ''}`;
  self.set(key, (self.get(key) ?? 0) + t);
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg));
console.log(`total ${(total / 1000).toFixed(0)} ms sampled`);
for (const [k, t] of rows) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`);
// by file
const byFile = new Map();
for (const [k, t] of self) {
  const f = k.split('  ')[1]?.replace(/:\d+$/, '') || '(native/gc)';
  byFile.set(f, (byFile.get(f) ?? 0) + t);
}
console.log('\nby file:');
for (const [f, t] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${f}`);
