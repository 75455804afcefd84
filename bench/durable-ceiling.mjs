// What Redis and the two Node processes around it can do at best on this machine, for the durable design
// (persistTo → Redis Streams → fromEventLog) and for the pub/sub-per-chunk baseline, without the library:
// the ceiling bench/durable.mjs is measured against: bench/durable.mjs imports measureCeiling() and runs it
// (xadd + xread, 1,000 streams) as a row of the durable section, in the same run as the library's rows.
// Alone, any write/read pair:
//
//   node bench/durable-ceiling.mjs [--write xadd|lua|publish] [--read xread|sub|none] [--streams 1000] [--events 200000] [--batch 2000] [--per-call 2]
//   (CEILING_CHILD_ARGS='--cpu-prof --cpu-prof-dir DIR': node flags of its producer and reader, as DURABLE_CHILD_ARGS)
//
// - write xadd:    the producer sends pipelined `XADD <events key> <seq>-1 e <json>` (raw RESP on a socket,
//                  --batch commands per write, at most 4 writes unanswered): Redis's cost of an entry.
// - write lua:     the producer sends the log's own APPEND script (EVALSHA; --per-call events of each of
//                  the --streams streams per call, a lease held by the bench): the durable design's write.
// - write publish: pipelined `PUBLISH bench:<id> <json>` (the baseline's commands, as pipelined as they get).
// - read xread:    one ioredis connection, `XREAD COUNT 500 BLOCK 1000 STREAMS <all keys> <ids>` in a loop, every
//                  entry's JSON parsed (what fromEventLog's shared tail does, without Rx).
// - read sub:      one ioredis connection SUBSCRIBEd to every stream's channel, every message parsed.
// The producer's work is the least any producer does (JSON.stringify and RESP framing); the reader's is an
// ioredis reply decode and JSON.parse. Reported: CPU µs per event of producer, Redis (INFO cpu) and reader,
// and what 2 cores allow for the three together.
import { fork, spawn } from 'node:child_process';
import { createServer, Socket } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const opt = (n, d) => (argv.includes(n) ? argv[argv.indexOf(n) + 1] : d);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cpuSec = (u) => (u.user + u.system) / 1e6;
const tell = (m) => new Promise((r) => process.send(m, r));

const WORDS = 'Reactive streams turn each server-sent event into a value you can map filter and combine '.split(' ');
const eventOf = (id, seq) => ({ type: 'response.output_text.delta', item_id: `msg_${id}`, output_index: 0, content_index: 0, delta: `${WORDS[seq % WORDS.length]} `, logprobs: [], sequence_number: seq, t: performance.now() });
// `run` keeps each run's keys apart, so that runs can share one redis-server (XADD's explicit ids, XREAD from 0).
const baseOf = (run, i) => `bench{:ceil${run}_${i}}`;
const keyOf = (run, i) => `${baseOf(run, i)}:events`;
const metaOf = (run, i) => `${baseOf(run, i)}:meta`;
const channelOf = (run, i) => `bench:ceil${run}_${i}`;

/** One command as RESP. */
function resp(args) {
  let s = `*${args.length}\r\n`;
  for (const a of args) {
    const x = String(a);
    s += `$${Buffer.byteLength(x)}\r\n${x}\r\n`;
  }
  return s;
}

async function producer(job) {
  const { url, write, streams, events, batch, perCall, sha, sep, run } = job;
  const [host, port] = url.replace('redis://', '').split(':');
  const socket = new Socket();
  await new Promise((r) => socket.connect(Number(port), host, r));
  socket.setNoDelay(true);
  // Counts replies: each reply this bench gets ends its last line with CRLF; XADD's ($n id) and EVALSHA's (an
  // array of bulk strings) have a known number of lines, PUBLISH's (:n) one.
  let lines = 0;
  let wake;
  socket.on('data', (b) => {
    for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) lines++;
    wake?.();
  });
  const perStream = Math.ceil(events / streams);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let sentLines = 0;
  const send = async (text, replyLines) => {
    sentLines += replyLines;
    socket.write(text);
    while (sentLines - lines > replyLines * 4) await new Promise((r) => (wake = r));
  };
  if (write === 'lua') {
    // Per call: perCall events of every stream.
    for (let from = 0; from < perStream; from += perCall) {
      // APPEND's arguments: every stream's 3 keys, then the JSON of every stream's events in one, then
      // `token:acked:seqs` per stream (acked '': no lost-events check).
      const keys = [];
      const args = [60_000, 60_000, 10_000_000, 1 << 30, ''];
      const jsons = [];
      for (let i = 0; i < streams; i++) {
        const n = Math.min(perCall, perStream - from);
        const seqs = [];
        for (let s = from; s < from + n; s++) {
          seqs.push(s);
          jsons.push(JSON.stringify(eventOf(`resp_${i}`, s)));
        }
        keys.push(metaOf(run, i), keyOf(run, i), `${baseOf(run, i)}:end`);
        args.push(`1::${seqs.join(',')}`);
      }
      args[4] = jsons.join(sep);
      // The reply: an empty array when every append went well.
      await send(resp(['EVALSHA', sha, keys.length, ...keys, ...args]), 1);
    }
  } else {
    let text = '';
    let n = 0;
    for (let s = 0; s < perStream; s++) {
      for (let i = 0; i < streams; i++) {
        const json = JSON.stringify(eventOf(`resp_${i}`, s));
        text += write === 'publish' ? resp(['PUBLISH', channelOf(run, i), json]) : resp(['XADD', keyOf(run, i), `${s}-1`, 'e', json]);
        if (++n === batch) {
          await send(text, n * (write === 'publish' ? 1 : 2));
          text = '';
          n = 0;
        }
      }
    }
    if (n > 0) await send(text, n * (write === 'publish' ? 1 : 2));
  }
  while (lines < sentLines) await new Promise((r) => (wake = r));
  const cpu = process.cpuUsage(cpu0);
  socket.destroy();
  await tell({ done: true, ms: performance.now() - t0, cpu: cpuSec(cpu), sent: perStream * streams });
}

async function reader(job) {
  const { Redis } = await import('ioredis');
  const { url, read, streams, events, sep, run } = job;
  const c = new Redis(url);
  const total = Math.ceil(events / streams) * streams;
  let got = 0;
  let check = 0;
  const cpu0 = process.cpuUsage();
  if (read === 'sub') {
    let done;
    const finished = new Promise((r) => (done = r));
    c.on('message', (_ch, msg) => {
      check += JSON.parse(msg).sequence_number;
      if (++got === total) done();
    });
    await c.subscribe(...Array.from({ length: streams }, (_, i) => channelOf(run, i)));
    process.send({ ready: true });
    await finished;
  } else {
    const keys = Array.from({ length: streams }, (_, i) => keyOf(run, i));
    const ids = keys.map(() => '0-0');
    const at = new Map(keys.map((k, i) => [k, i]));
    process.send({ ready: true });
    while (got < total) {
      const r = await c.xread('COUNT', 500, 'BLOCK', 1000, 'STREAMS', ...keys, ...ids);
      for (const [key, entries] of r ?? []) {
        if (sep !== '\r') {
          for (const [, fields] of entries) check += JSON.parse(fields[1]).sequence_number;
          got += entries.length;
        } else {
          // The log's APPEND: an entry may hold several events, joined by '\r'.
          for (const [, fields] of entries) {
            const jsons = fields[1].split('\r');
            for (const json of jsons) check += JSON.parse(json).sequence_number;
            got += jsons.length;
          }
        }
        ids[at.get(key)] = entries[entries.length - 1][0];
      }
    }
  }
  const cpu = process.cpuUsage(cpu0);
  await c.quit();
  await tell({ done: true, cpu: cpuSec(cpu), got, check });
}

async function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

let runs = 0;
/**
 * One ceiling run on the redis-server at `url` (a redis:// URL): `write` xadd|lua|publish, `read` xread|sub|none.
 * Returns events/s (wall: first write → last event read), each process's CPU µs per event (producer, Redis from
 * INFO cpu, reader) and `ceiling`: the events/s `cores` allow for the three together when CPU is all that binds
 * (min(cores / their sum, 1 / the busiest one)).
 */
export async function measureCeiling(url, { write = 'xadd', read = write === 'publish' ? 'sub' : 'xread', streams = 1000, events = 200_000, batch = 2000, perCall = 2, cores = cpus().length } = {}) {
  const { Redis } = await import('ioredis');
  const run = `${++runs}_${process.pid}`;
  const admin = new Redis(url, { retryStrategy: (n) => (n > 100 ? null : 50) });
  admin.on('error', () => undefined); // refused until redis-server listens: retried
  const kids = [];
  try {
    await admin.ping();
    let sha;
    let sep;
    if (write === 'lua') {
      const root = process.env.OPENAI_RX_DIST ? new URL(`file://${process.env.OPENAI_RX_DIST.replace(/\/?$/, '/')}`) : new URL('../dist/', import.meta.url);
      const { APPEND } = await import(new URL('esm/lib/log/redis-scripts.js', root).href);
      sha = await admin.script('LOAD', APPEND);
      // The events' separator in the call, and in an entry of several (a line break before they were joined).
      sep = APPEND.includes("string.find(jsons, '\\r'") ? '\r' : '\n';
      const p = admin.pipeline();
      for (let i = 0; i < streams; i++) p.hset(metaOf(run, i), 'fence', 1, 'holder', 1, 'until', Date.now() + 3_600_000);
      await p.exec();
    }
    const job = { url, write, read, streams, events, batch, perCall, sha, sep, run };
    const child = (role) => {
      const c = fork(fileURLToPath(import.meta.url), ['--ceiling-child', role], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: process.env.CEILING_CHILD_ARGS ? process.env.CEILING_CHILD_ARGS.split(' ') : [] });
      kids.push(c);
      const msgs = [];
      let notify;
      const failed = new Promise((_, reject) => c.once('exit', (code) => code !== 0 && reject(new Error(`the ceiling's ${role} exited ${code}`))));
      failed.catch(() => undefined);
      c.on('message', (m) => {
        msgs.push(m);
        notify?.();
      });
      c.send(job);
      const next = async () => {
        while (msgs.length === 0) await new Promise((r) => (notify = r));
        return msgs.shift();
      };
      return { next: () => Promise.race([next(), failed]) };
    };
    const redisCpu = async () => {
      const info = await admin.info('cpu');
      return Number(/used_cpu_user:([\d.]+)/.exec(info)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)[1]);
    };
    const r = read === 'none' ? undefined : child('reader');
    if (r) await r.next();
    await sleep(100);
    const redis0 = await redisCpu();
    const t0 = performance.now();
    const p = child('producer');
    const pd = await p.next();
    const rd = r ? await r.next() : undefined;
    const ms = performance.now() - t0;
    const redisSec = (await redisCpu()) - redis0;
    const n = pd.sent;
    if (rd && rd.got !== n) throw new Error(`the ceiling's reader got ${rd.got} of ${n}`);
    const us = (s) => (s * 1e6) / n;
    const [P, R, C] = [us(pd.cpu), us(redisSec), rd ? us(rd.cpu) : 0];
    return { write, read, streams, events: n, batch, perCall, ms, eventsPerSec: (n / ms) * 1000, cpuProducer: pd.cpu, cpuRedis: redisSec, cpuReader: rd?.cpu ?? 0, us: { producer: P, redis: R, reader: C }, ceiling: cpuBound([P, R, C], cores) };
  } finally {
    for (const c of kids) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    admin.disconnect();
  }
}

/** The events/s `cores` allow for processes costing `us` CPU µs per event each, when CPU is all that binds. */
export const cpuBound = (us, cores = cpus().length) => Math.min((cores * 1e6) / us.reduce((a, b) => a + b, 0), 1e6 / Math.max(...us));

async function main() {
  const write = opt('--write', 'xadd');
  const port = await freePort();
  const server = spawn(process.env.REDIS_SERVER ?? 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'], { stdio: 'ignore' });
  try {
    const c = await measureCeiling(`redis://127.0.0.1:${port}`, {
      write,
      read: opt('--read', write === 'publish' ? 'sub' : 'xread'),
      streams: Number(opt('--streams', 1000)),
      events: Number(opt('--events', 200_000)),
      batch: Number(opt('--batch', 2000)),
      perCall: Number(opt('--per-call', 2)),
    });
    const { producer: P, redis: R, reader: C } = c.us;
    console.log(`write ${c.write}${c.write === 'lua' ? ` (${c.perCall}/stream/call)` : ` (batch ${c.batch})`}, read ${c.read}, ${c.streams} streams, ${c.events} events; ${cpus().length} cores, load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    console.log(`  CPU µs/event: producer ${P.toFixed(2)}  redis ${R.toFixed(2)}  reader ${C.toFixed(2)}  (sum ${(P + R + C).toFixed(2)})`);
    console.log(`  wall ${(c.ms / 1000).toFixed(2)} s = ${(c.eventsPerSec / 1000).toFixed(1)}k events/s; CPU-bound ceiling on ${cpus().length} cores: ${(c.ceiling / 1000).toFixed(0)}k events/s`);
  } finally {
    server.kill('SIGTERM');
  }
}

if (argv[0] === '--ceiling-child') {
  process.once('message', (job) =>
    (argv[1] === 'producer' ? producer(job) : reader(job)).then(
      () => process.exit(0),
      (e) => {
        console.error(e);
        process.exit(1);
      },
    ),
  );
} else if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
