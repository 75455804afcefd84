// The producer's CPU per stream, round after round in one process: how much of a short run's cost is the
// process's cold start (code not yet compiled: interpreted, then compiled on V8's background threads, which
// process.cpuUsage counts) and how much the design's own. Each round writes --streams new streams of --events
// events each through persistTo(redisEventLog) on one redis-server (no readers), one event of every stream per
// turn, as the throughput run's producer emits them.
//
//   node scripts/build.mjs && node bench/durable-warmup.mjs [--streams 1000] [--events 50] [--rounds 6]
//   (OPENAI_RX_DIST=/path/to/dist to measure another build; REDIS_SERVER=/path/to/redis-server)
import { Subject, lastValueFrom, merge, count } from 'rxjs';
import { loadRx, startRedis } from './durable.mjs';

const argv = process.argv.slice(2);
const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
const STREAMS = Number(opt('--streams', 1000));
const EVENTS = Math.max(2, Number(opt('--events', 50)));
const ROUNDS = Number(opt('--rounds', 6));

const response = (id, status) => ({ id, object: 'response', created_at: 1764400000, status, model: 'bench-model', output: [], usage: null, background: true });
const eventOf = (id, seq) =>
  seq === 0
    ? { type: 'response.created', response: response(id, 'queued'), sequence_number: 0 }
    : seq === EVENTS - 1
      ? { type: 'response.completed', response: response(id, 'completed'), sequence_number: seq }
      : { type: 'response.output_text.delta', item_id: `msg_${id}`, output_index: 0, content_index: 0, delta: 'word ', logprobs: [], sequence_number: seq };

const rx = await loadRx();
const redis = await startRedis();
const log = rx.redisEventLog({ url: redis.url });
try {
  await log.state({ responseId: 'warm' }); // connected before the first round
  console.log(`${STREAMS} streams × ${EVENTS} events per round, producer CPU (process.cpuUsage)`);
  for (let round = 1; round <= ROUNDS; round++) {
    const ids = Array.from({ length: STREAMS }, (_, i) => `resp_${process.pid}_${round}_${i}`);
    const subjects = ids.map(() => new Subject());
    const done = lastValueFrom(merge(...subjects.map((s) => s.pipe(rx.persistTo(log)))).pipe(count()));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let seq = 0; seq < EVENTS; seq++) {
      for (let i = 0; i < STREAMS; i++) subjects[i].next(eventOf(ids[i], seq));
      await new Promise((r) => setImmediate(r));
    }
    for (const s of subjects) s.complete();
    const n = await done;
    if (n !== STREAMS * EVENTS) throw new Error(`round ${round}: ${n} events passed, ${STREAMS * EVENTS} expected`);
    const cpu = process.cpuUsage(cpu0);
    const us = cpu.user + cpu.system;
    console.log(`round ${round}: ${(us / STREAMS).toFixed(1).padStart(7)} µs per stream, ${(us / (STREAMS * EVENTS)).toFixed(2).padStart(6)} µs per event, wall ${(performance.now() - t0).toFixed(0)} ms`);
  }
} finally {
  await log.close();
  await redis.stop();
}
