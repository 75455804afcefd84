// The write path of two builds side by side: each build's redisEventLog in this one process, on one redis-server of
// its own, appending in alternating blocks of turns (as bench/durable-append.mjs: every turn, each of 1,000 streams
// appends <per-append> events, at most 2 turns unacknowledged). Prints each build's CPU per event, this process's
// and redis-server's (INFO cpu), summed over its blocks: the machine's load falls on both alike. A scratch tool.
//   node scripts/build.mjs && node --expose-gc bench/durable-append-ab.mjs <dist A> <dist B> [per-append 2] [blocks 20] [turns per block 20]
import { loadavg } from 'node:os';
import { infoCpu, startRedis } from './durable.mjs';
const [distA, distB, perArg = '2', blocksArg = '20', turnsArg = '20'] = process.argv.slice(2);
const { Redis } = await import('ioredis');
const mods = [await import(`file://${distA}/esm/index.js`), await import(`file://${distB}/esm/index.js`)];
const server = await startRedis();
const url = server.url;
const admin = new Redis(url);
const redisCpu = () => infoCpu(admin);
const WORDS = 'Reactive streams turn each server-sent event into a value you can map filter and combine '.split(' ');
const eventOf = (id, seq) => ({ type: 'response.output_text.delta', item_id: `msg_${id}`, output_index: 0, content_index: 0, delta: `${WORDS[seq % WORDS.length]} `, logprobs: [], sequence_number: seq, t: performance.now() });
const per = Number(perArg);
const streams = 1000;
const setups = await Promise.all(mods.map(async (rx, k) => {
  const log = rx.redisEventLog({ url, keyPrefix: `ab${k}:`, maxEvents: 1e9, maxBytes: 1e12 });
  const scopes = Array.from({ length: streams }, (_, i) => ({ responseId: `resp_${i}` }));
  const tokens = await Promise.all(scopes.map((s) => log.acquire(s, 600_000).then((l) => l.token)));
  return { log, scopes, tokens, seq: 0 };
}));
const turn = (s) => {
  const from = s.seq;
  s.seq += per;
  return Promise.all(s.scopes.map((sc, i) => s.log.append(sc, s.tokens[i], Array.from({ length: per }, (_, k) => eventOf(sc.responseId, from + k)))));
};
const run = async (s, turns) => {
  const inFlight = new Set();
  for (let t = 0; t < turns; t++) {
    const p = turn(s);
    inFlight.add(p);
    void p.then(() => inFlight.delete(p));
    if (inFlight.size >= 2) await Promise.race(inFlight);
    else await new Promise((r) => setImmediate(r));
  }
  await Promise.all(inFlight);
};
for (const s of setups) await run(s, 10);
const tot = [[0, 0, 0], [0, 0, 0]];
const turns = Number(turnsArg);
for (let b = 0; b < Number(blocksArg); b++) {
  for (const k of b % 2 ? [1, 0] : [0, 1]) {
    global.gc?.();
    const r0 = await redisCpu();
    const c0 = process.cpuUsage();
    await run(setups[k], turns);
    const c = process.cpuUsage(c0);
    const r = (await redisCpu()) - r0;
    tot[k][0] += c.user + c.system;
    tot[k][1] += r * 1e6;
    tot[k][2] += turns * streams * per;
  }
}
for (const k of [0, 1]) console.log(`${k ? 'B' : 'A'} ${[distA, distB][k]}: producer ${(tot[k][0] / tot[k][2]).toFixed(2)}, redis ${(tot[k][1] / tot[k][2]).toFixed(2)} µs/event (${tot[k][2]} events, load ${loadavg()[0].toFixed(1)})`);
for (const s of setups) await s.log.close();
admin.disconnect();
await server.stop();
