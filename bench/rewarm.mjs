// Speed after a garbage collection: runs a few contenders on one workload many times, interleaved, with a full
// `gc()` before each run (or none: --steady), and prints per-contender medians, spread and the ratio to the floor.
//
//   node --expose-gc bench/rewarm.mjs [--workload tools|text|chat] [--mode memory|http] [--runs 40] [--warm 3]
//        [--n chunks (chat)] [--dists a=<dist>,b=<dist>] [--only <substring,...>] [--alone] [--steady] [--cpu] [--keep-maps] [--keep-alive] [--keep-rx] [--keep-streams] [--per-run] [--json out.json]
//
// The contenders are those of bench/contenders.mjs (the dist of OPENAI_RX_DIST, else ./dist). For an A/B of two
// builds, --dists runs both in one process and the same rounds, or run this once per build, alternating processes
// (see RESULTS.md); the ratio to the floor, measured in the same rounds, is what to compare. Profile with `node --expose-gc --cpu-prof` or
// `--trace-deopt` on it.
import { spawn } from 'node:child_process';
import { chunk, workload } from './workloads.mjs';

const argv = process.argv.slice(2);
const flag = (n) => argv.includes(n);
const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
const WORKLOAD = opt('--workload', 'tools');
const MODE = opt('--mode', 'memory');
const RUNS = Number(opt('--runs', 40));
const WARM = Number(opt('--warm', 3));
const STEADY = flag('--steady');
const CPU = flag('--cpu');
const ONLY = opt('--only', WORKLOAD === 'chat' ? 'fromChatChunks + accumulateText (strict)' : 'floor,eventsource,fromResponsesSSE,pipeline: fanOut').split(',');
const ARGS = { tools: [2_000, 500, 40], text: [200_000], chat: [Number(opt('--n', 100_000))] }[WORKLOAD] ?? [];

const gc = globalThis.gc;
if (!gc && !STEADY) throw new Error('run with node --expose-gc (or --steady)');
const now = () => performance.now();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.round(q * (xs.length - 1))];

const w = workload(WORKLOAD, ARGS);
const chunks = chunk(w.bytes, 7);
// --keep-maps (an experiment): hold one parsed event of each type for the whole run, so that the hidden classes
// (maps) JSON.parse gives them survive the forced GCs.
const kept = new Map();
if (flag('--keep-maps')) {
  for (const m of String(w.bytes).matchAll(/^data: (.*)$/gm)) {
    const e = JSON.parse(m[1]);
    if (!kept.has(e.type)) kept.set(e.type, e);
  }
}
// --dists a=<dist>,b=<dist>: the rx contenders of each build, in the same process and the same rounds (an A/B
// that the load of a shared machine hits alike); without it, the build of OPENAI_RX_DIST (else ./dist).
const dists = opt('--dists') ? opt('--dists').split(',').map((d) => d.split('=')) : [[undefined, process.env.OPENAI_RX_DIST]];
let check;
let all = [];
for (const [label, dist] of dists) {
  if (dist !== undefined) process.env.OPENAI_RX_DIST = dist;
  const m = await import(`./contenders.mjs?dist=${encodeURIComponent(dist ?? '')}`);
  check = m.check;
  const list = WORKLOAD === 'chat' ? m.chatContenders : m.responsesContenders;
  const mine = list.filter((c) => c.group === 'openai-rx').map((c) => (label ? { ...c, name: `[${label}] ${c.name}` } : c));
  if (all.length === 0) all = list.filter((c) => c.group !== 'openai-rx');
  all.push(...mine);
}
// --alone: without the two baselines (to profile one contender by itself; ratios are then to its own median)
const contenders = all.filter((c) => ((c.group === 'floor' || c.group === 'baseline') && !flag('--alone')) || (c.group !== 'sdk' && ONLY.some((o) => c.name.includes(o))));
const isBase = (c) => c.group === 'floor' || c.group === 'baseline' || flag('--alone');

function memoryFetch() {
  return async () => {
    let i = 0;
    const body = new ReadableStream({
      pull(c) {
        if (i < chunks.length) c.enqueue(chunks[i++]);
        else c.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}

let server;
let baseURL = `http://127.0.0.1:9/w/${WORKLOAD}/${ARGS.join(',')}/v1`;
if (MODE === 'http') {
  server = spawn(process.execPath, [new URL('./server.mjs', import.meta.url).pathname], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise((resolve) => server.stdout.on('data', (d) => { const m = /listening (\d+)/.exec(String(d)); if (m) resolve(Number(m[1])); }));
  baseURL = `http://127.0.0.1:${port}/w/${WORKLOAD}/${ARGS.join(',')}/v1`;
  await (await fetch(`http://127.0.0.1:${port}/prepare?w=${WORKLOAD}/${ARGS.join(',')}`)).text();
}
const ctx = () => (MODE === 'memory' ? { fetch: memoryFetch(), baseURL } : { fetch, baseURL });

// --keep-rx (an experiment): a few RxJS subscribers held for the whole run, so that the maps of RxJS's
// per-subscription objects survive the forced GCs.
const keptRx = [];
if (flag('--keep-rx')) {
  const { Observable, of } = await import('rxjs');
  keptRx.push(new Observable(() => {}).subscribe({ next() {}, error() {}, complete() {} }));
  keptRx.push(of(1).subscribe({ next() {}, error() {}, complete() {} }));
}

// --keep-alive (an experiment): one more stream per contender that delivers half the body and then stalls,
// open for the whole run, so that every per-stream object (and the hidden class it has) stays alive across GCs.
const stalled = [];
function stalledFetch() {
  return async () => {
    let i = 0;
    const body = new ReadableStream({
      pull(c) {
        if (i < chunks.length >> 1) c.enqueue(chunks[i++]);
        else return new Promise((resolve) => stalled.push(c, resolve)); // held: the stream and its reader stay reachable
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
}

// --keep-streams (an experiment): a fetch Response whose body is being read and stalls, held for the whole
// run (Node's web-stream objects only, no openai-rx and no RxJS objects).
if (flag('--keep-streams')) {
  const res = await stalledFetch()();
  const reader = res.body.getReader();
  await reader.read();
  keptRx.push(res, reader, reader.read());
}

try {
  const times = new Map(contenders.map((c) => [c, []]));
  for (const c of contenders) for (let i = 0; i < WARM; i++) check(w, await c.run(ctx(), c));
  if (flag('--keep-alive')) for (const c of contenders) void c.run({ fetch: stalledFetch(), baseURL }, c);
  const floorPerRound = [];
  const ratios = new Map(contenders.map((c) => [c, []]));
  for (let run = 0; run < RUNS; run++) {
    // rotate the order each round so that no contender always runs right after the same one
    const order = contenders.map((_, i) => contenders[(i + run) % contenders.length]);
    const round = new Map();
    for (const c of order) {
      if (!STEADY) gc();
      const c0 = CPU ? process.cpuUsage() : undefined;
      const t0 = now();
      const r = await c.run(ctx(), c);
      // --cpu: the process's CPU time (all its threads: the JIT's and the GC's too) instead of the wall time,
      // which a busy machine inflates by whatever else it runs
      const t = CPU ? ((u) => (u.user + u.system) / 1000)(process.cpuUsage(c0)) : now() - t0;
      check(w, r);
      times.get(c).push(t);
      round.set(c, t);
    }
    const floor = Math.min(...contenders.filter(isBase).map((c) => round.get(c)));
    floorPerRound.push(floor);
    for (const c of contenders) ratios.get(c).push(round.get(c) / floor);
    if (flag('--per-run')) console.log(run, contenders.map((c) => round.get(c).toFixed(1)).join(' '));
  }
  const floorMs = Math.min(...contenders.filter(isBase).map((c) => median(times.get(c))));
  console.log(`# ${WORKLOAD} (${w.events} events), ${MODE}, ${RUNS} runs, ${STEADY ? 'no forced GC' : 'gc() before each run'}, ${CPU ? 'CPU ms of the process' : 'wall ms'}, dist ${opt('--dists') ?? process.env.OPENAI_RX_DIST ?? './dist'}`);
  console.log('median ms | p25–p75 ms | x floor (medians) | x floor per round: median (p25–p75) | contender');
  const out = [];
  for (const c of contenders) {
    const ts = times.get(c);
    const rs = ratios.get(c);
    const row = { name: c.name, medianMs: median(ts), p25: quantile(ts, 0.25), p75: quantile(ts, 0.75), ratio: median(ts) / floorMs, roundRatio: median(rs), roundP25: quantile(rs, 0.25), roundP75: quantile(rs, 0.75) };
    out.push(row);
    console.log(`${row.medianMs.toFixed(1).padStart(7)} | ${row.p25.toFixed(1)}–${row.p75.toFixed(1)} | ${row.ratio.toFixed(2)} | ${row.roundRatio.toFixed(2)} (${row.roundP25.toFixed(2)}–${row.roundP75.toFixed(2)}) | ${c.name}`);
  }
  if (opt('--json')) (await import('node:fs')).writeFileSync(opt('--json'), JSON.stringify({ workload: WORKLOAD, mode: MODE, steady: STEADY, runs: RUNS, rows: out }, null, 2));
} finally {
  server?.kill();
}
