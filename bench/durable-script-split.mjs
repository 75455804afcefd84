// Where APPEND_LIVE_BASE's Redis CPU goes (the single-Redis append with live reads, lib/log/redis-scripts.ts): the
// script and variants of it without one part, alternated in blocks on one redis-server of its own, each variant on
// 1,000 streams of its own, each call carrying <per-stream> events of every stream (as persistTo's writers' appends
// of one turn). Prints Redis's CPU per event (INFO cpu) of each: full; noXadd (the XADD of the events after a stream's first,
// one entry);
// noPub (its SPUBLISHes of the live lines); pass1 (returns once the checks are done: the call's arguments, TIME,
// HMGET, the marks and the JSON's separators read, no write). A scratch tool for the script's costs.
//   node scripts/build.mjs && node bench/durable-script-split.mjs [per-stream 32] [blocks 6] [calls per block 4]
import { loadavg } from 'node:os';
import { infoCpu, startRedis } from './durable.mjs';

const [K, BLOCKS, CALLS] = [32, 6, 4].map((d, i) => Number(process.argv[2 + i] ?? d));
const root = process.env.OPENAI_RX_DIST ? `file://${process.env.OPENAI_RX_DIST.replace(/\/?$/, '/')}` : new URL('../dist/', import.meta.url).href;
const rx = await import(new URL('esm/index.js', root).href);
const { APPEND_LIVE_BASE: full } = await import(new URL('esm/lib/log/redis-scripts.js', root).href);
const { Redis } = await import('ioredis');

const server = await startRedis();
const url = server.url;
const c = new Redis(url);
const cpu = () => infoCpu(c);
const without = (what, text, by) => {
  const s = full.replace(text, by);
  if (s === full) throw new Error(`the script no longer has the part ${what} takes out`);
  return s;
};
const variants = {
  full,
  noXadd: without('noXadd', "    redis.call('XADD', ke, id, 'e', rest)", '    -- no XADD'),
  noPub: without('noPub', /redis\.call\('SPUBLISH', [^\n]*/g, '-- no SPUBLISH'),
  pass1: without('pass1', '  local json = (p1 == 1', '  do return nil, pos end\n  local json = (p1 == 1'),
};
// The events' separator in the call (a line break before the appends stored an append's events as one entry).
const SEP = full.includes("string.find(jsons, '\\r'") ? '\r' : '\n';
const streams = 1000;
const setups = {};
try {
  for (const [name, script] of Object.entries(variants)) {
    const log = rx.redisEventLog({ url, keyPrefix: `${name}:` });
    const scopes = Array.from({ length: streams }, (_, i) => ({ responseId: `r${i}` }));
    const tokens = await Promise.all(scopes.map((s) => log.acquire(s, 600_000).then((l) => l.token)));
    await log.close();
    // A script that takes `lo~hi` marks also takes the streams' JSON apart by '\n'.
    setups[name] = { sha: await c.script('LOAD', script), keys: scopes.map((s) => `${name}:{:${s.responseId}}`), tokens, seq: 0, ranges: script.includes('~(%-?%d+)$') };
  }
  const ev = (seq) => JSON.stringify({ type: 'response.output_text.delta', item_id: 'msg_abc', output_index: 0, content_index: 0, delta: 'word ', logprobs: [], sequence_number: seq, t: 12345.678 });
  // One call as lib/log/redis-append-batch.ts builds it: KEYS the key bases, then the limits, the JSON, the numbers.
  const callOf = (s) => {
    const texts = [];
    const specs = [];
    for (let i = 0; i < streams; i++) {
      const marks = [];
      const own = [];
      for (let k = 0; k < K; k++) {
        marks.push(s.seq + k);
        own.push(ev(s.seq + k));
      }
      texts.push(own.join(SEP));
      specs.push(`${s.tokens[i]}::${s.ranges && K > 1 ? `${marks[0]}~${marks[K - 1]}` : marks.join(',')}`);
    }
    s.seq += K;
    return [s.sha, streams, ...s.keys, 86400000, 86400000, 1e9, 1e12, texts.join(s.ranges ? '\n' : SEP), specs.join(' ')];
  };
  const tot = {};
  for (let b = 0; b < BLOCKS; b++) {
    const names = Object.keys(variants);
    for (const name of b % 2 ? names.reverse() : names) {
      const calls = Array.from({ length: CALLS }, () => callOf(setups[name]));
      const r0 = await cpu();
      for (const a of calls) {
        const r = await c.evalsha(...a);
        if (r.length) throw new Error(`${name}: ${r.join(' ')}`);
      }
      tot[name] = (tot[name] ?? 0) + (await cpu()) - r0;
    }
  }
  const n = BLOCKS * CALLS * streams * K;
  console.log(`${streams} streams × ${K} events per call, ${n} events per variant (load ${loadavg()[0].toFixed(1)}): Redis CPU µs/event ${Object.entries(tot).map(([name, t]) => `${name} ${((t * 1e6) / n).toFixed(2)}`).join(', ')}`);
} finally {
  c.disconnect();
  await server.stop();
}
