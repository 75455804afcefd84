// partialJson()'s cost: a JSON document (rows of objects with strings, numbers and nested arrays) arriving as
// growing snapshots 1–8 characters apart (seeded), as outputText() emits a structured output, through partialJson().
//   node bench/partial-json.mjs [--quick] [--check]  (reads dist/esm: `npm run build` first; or npm run bench -- --only partial-json)
// Prints the total ms, ns per character and values emitted at 200 KB and 2 MB, beside one JSON.parse of the whole
// document. Linear means the same ns per character at both sizes; --check exits 1 when the 2 MB run costs more than
// 1.5x the 200 KB run per character.
import { rng } from './workloads.mjs';
import { Observable } from 'rxjs';
import { partialJson } from '../dist/esm/index.js';

const quick = process.argv.includes('--quick');
const check = process.argv.includes('--check');


const WORDS = ['Paris', 'rain', 'clear sky', 'wind 12 km/h', 'héllo', '今日は', '👍🏽', 'line\nbreak', 'a "quoted" word'];

/** About `size` characters of JSON: { "rows": [ { id, name, score, tags: [...], cells: [[...]] }, ... ] }. */
function documentOf(size, rand) {
  const rows = [];
  let length = 0;
  for (let i = 0; length < size; i++) {
    const row = {
      id: i,
      name: `${WORDS[i % WORDS.length]} ${i}`,
      score: Math.round(rand() * 1e6) / 1e3,
      active: rand() < 0.5,
      tags: Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, j) => WORDS[(i + j) % WORDS.length]),
      cells: [[i, -i / 4, null], [rand() < 0.5 ? 1e21 : 1.5e-7]],
    };
    length += JSON.stringify(row).length + 1;
    rows.push(row);
  }
  return JSON.stringify({ title: 'report', rows });
}

/** Where each snapshot ends: 1–8 characters after the previous one. */
function cuts(text, rand) {
  const out = [];
  for (let at = 0; at < text.length; ) out.push((at = Math.min(text.length, at + 1 + Math.floor(rand() * 8))));
  return out;
}

function run(text, ends) {
  const source = new Observable((s) => {
    for (const end of ends) s.next(text.slice(0, end));
    s.complete();
  });
  let emissions = 0;
  let last;
  const t0 = performance.now();
  source.pipe(partialJson()).subscribe({
    next: (v) => {
      emissions++;
      last = v;
    },
    error: (e) => {
      throw e;
    },
  });
  const ms = performance.now() - t0;
  if (last === undefined || last.rows.length === 0) throw new Error('partialJson emitted no final value');
  return { ms, emissions };
}

function parseMs(text) {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    JSON.parse(text);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

const runs = quick ? 1 : 3;
const rows = [];
for (const [label, size] of [['200 KB', 200_000], ['2 MB', 2_000_000]]) {
  const rand = rng(27);
  const text = documentOf(size, rand);
  const ends = cuts(text, rand);
  const warm = documentOf(20_000, rng(1));
  run(warm, cuts(warm, rng(1))); // warm-up
  let best;
  for (let i = 0; i < runs; i++) {
    const r = run(text, ends);
    if (best === undefined || r.ms < best.ms) best = r;
  }
  rows.push({ label, chars: text.length, snapshots: ends.length, ...best, nsPerChar: (best.ms * 1e6) / text.length, parse: parseMs(text) });
}

console.log('partialJson()  characters  snapshots  emitted    total ms  ns/char  JSON.parse ms (whole, once)');
for (const r of rows) {
  console.log(`${r.label.padEnd(13)} ${String(r.chars).padStart(11)} ${String(r.snapshots).padStart(10)} ${String(r.emissions).padStart(8)} ${r.ms.toFixed(1).padStart(11)} ${r.nsPerChar.toFixed(0).padStart(8)} ${r.parse.toFixed(1).padStart(14)}`);
}
const ratio = rows[1].nsPerChar / rows[0].nsPerChar;
const ok = ratio <= 1.5;
console.log(`linear: ns/char at 2 MB is ${ratio.toFixed(2)}x that at 200 KB (target ≤ 1.5x) ${ok ? 'ok' : 'MISSED'}`);
if (check && !ok) process.exit(1);
