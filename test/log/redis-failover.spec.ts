// A Redis Cluster master killed (SIGKILL) in the middle of 120 live streams (issue 25): its replica is promoted
// a few seconds later (cluster-node-timeout 1500 ms), and the log rides through within its retry budget (default
// 20 s). Producers (persistTo) on one redisEventLog, live readers (fromEventLog) on another, as another process
// would have, and late readers after the end: every producer completes, every reader gets exactly what its
// producer sent. Then with `replicas: 1`: a master killed right after it acknowledged an append loses nothing
// it acknowledged. Before the fix, the producers of the killed master's streams failed with 'unavailable' ("Too
// many Cluster redirections. Last error: Connection is closed") and every live reader failed.
import { redisStreamKeys } from '../../lib/log/redis';
import type { EventLog } from '../../lib/log/types';
import { type LiveStream, lateReads, startLiveRun, summary, until, watchEnded, wrongOnes } from './live-streams';
import { askNode, clusterLogs, redisClusterForSuite } from './redis-cluster-server';
import type { Outcome } from './takeover-helpers';

jest.setTimeout(600_000);

const STREAMS = 120;
/** Between two events of a stream: a model's pace; the streams run until the test ends them, so the kill always lands mid-run. */
const PACE_MS = 10;
/** Each stream's progress before the kill, and again after the promotion before the streams end. */
const PROGRESS = 30;
/** Bound on each wait for progress: generous (a busy 2-core machine is slow), far below jest's. */
const WAIT_MS = 180_000;

// Declared before the cluster's hooks: the logs and their clients go first.
const clusterLog = clusterLogs(() => suite.cluster.startupNodes, 'all');
const suite = redisClusterForSuite({ masters: 3, replicasPerMaster: 1 });

// A test that killed a master leaves it down: it comes back (as a replica of the promoted one) before the next.
afterEach(async () => {
  for (const x of suite.cluster.nodes) if (x.role === 'down') await suite.cluster.restartNode(x.port);
});


let n = 0;
/** 120 fresh stream ids, and the master holding most of them (by the slot of their keys). */
async function streamsAndVictim(label: string): Promise<{ ids: string[]; victim: number; onVictim: Set<string> }> {
  const tag = `${label}_${process.pid}_${Date.now().toString(36)}_${++n}`;
  const ids = Array.from({ length: STREAMS }, (_, i) => `resp_${tag}_${i}`);
  const masterOf = new Map<string, number>();
  for (const id of ids) masterOf.set(id, await suite.cluster.masterOf(redisStreamKeys('openai-rx:log:', { responseId: id }).meta));
  const counts = new Map<number, number>();
  for (const port of masterOf.values()) counts.set(port, (counts.get(port) ?? 0) + 1);
  const [victim] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
  return { ids, victim, onVictim: new Set(ids.filter((id) => masterOf.get(id) === victim)) };
}

/** Resolves once every stream whose producer still runs has sent and had acknowledged more than `seq(s)`. */
const progressed = (streams: readonly LiveStream[], ended: Set<string>, seq: (s: LiveStream) => number, what: string): Promise<void> =>
  until(
    () => streams.every((s) => ended.has(s.id) || s.acked > seq(s)),
    WAIT_MS,
    () => `${what}: ${streams.filter((s) => !ended.has(s.id) && s.acked <= seq(s)).length} streams did not progress`,
  );

test(`the master holding most of ${STREAMS} live streams killed mid-run: every producer completes; every late reader gets exactly what was sent, every live one too or an exact prefix then 'lost'`, async () => {
  const { ids, victim, onVictim } = await streamsAndVictim('failover');
  expect(onVictim.size).toBeGreaterThan(0);
  const producerLog = clusterLog();
  const readerLog = clusterLog();
  const run = startLiveRun({ producerLog, readerLog, ids, paceMs: PACE_MS });
  const ended = watchEnded(run.streams);
  let producers: Outcome[] = [];
  let live: Outcome[] = [];
  try {
    await progressed(run.streams, ended, () => PROGRESS, 'before the kill');
    const { promoted, ms } = await suite.cluster.killMaster(victim);
    console.log(`failover: killed ${victim} (${onVictim.size} of ${STREAMS} streams), ${promoted} served its slots ${ms} ms later`);
    const at = new Map(run.streams.map((s) => [s.id, s.acked]));
    await progressed(run.streams, ended, (s) => at.get(s.id)! + PROGRESS, 'after the promotion');
  } finally {
    run.end();
    producers = await Promise.all(run.streams.map((s) => s.producer));
    live = await Promise.all(run.streams.map((s) => s.live));
  }
  // Late readers in yet another log instance, started after every stream ended.
  const late = await lateReads(clusterLog(), run.streams);
  // With replicas: 0 (the default) Redis replicates after it answers: a live reader of the killed master's streams
  // may have delivered an event the promoted replica lacks (stored but not yet copied; its producer, never told,
  // sends it again). It then ends with EventLogError('lost') after an exact prefix, as docs/durable-log.md
  // says; never a gap or a repeat. With replicas: 1 (the next test) none may end so.
  expect(summary([...wrongOnes('producer', run.streams, producers), ...wrongOnes('live reader', run.streams, live, (id) => onVictim.has(id)), ...wrongOnes('late reader', run.streams, late)])).toEqual([]);
});

test('replicas: 1: a master killed right after acknowledging appends while its replica had fallen behind loses none of them; every producer completes, every reader is exact', async () => {
  const { ids, victim, onVictim } = await streamsAndVictim('acked');
  const [replica] = await suite.cluster.replicasOf(victim);
  expect(replica).toBeDefined();
  // The promoted replica has no replica of its own until the killed node is back as one (restarted below, after
  // the promotion): until then no WAIT 1 can succeed, so the budget covers the promotion and that restart.
  const producerLog = clusterLog({ replicas: 1, retryBudgetMs: 120_000 });
  /** Per stream, the last sequence number sent when the replica's link was cut (set then). */
  let sentAtCut: Map<string, number> | undefined;
  let killed: Promise<void> | undefined;
  let ackedAtKill = new Map<string, number>();
  const kill = (): void => {
    if (killed) return;
    killed = suite.cluster.kill(victim); // the SIGKILL is sent now, in this turn
    ackedAtKill = new Map(run.streams.map((x) => [x.id, x.acked]));
  };
  const run = startLiveRun({
    producerLog,
    // Readers with replicas: 1 too: they deliver only what a replica confirmed (what survives the kill).
    readerLog: clusterLog({ replicas: 1, retryBudgetMs: 120_000 }),
    ids,
    paceMs: PACE_MS,
    // Right after the master acknowledged an append its replica cannot have: of events sent after the cut (without WAIT, the first such append).
    onAck: (s) => {
      if (sentAtCut && onVictim.has(s.id) && s.acked > sentAtCut.get(s.id)!) kill();
    },
  });
  const ended = watchEnded(run.streams);
  let producers: Outcome[] = [];
  let live: Outcome[] = [];
  try {
    await progressed(run.streams, ended, () => PROGRESS, 'before the kill');
    // The replica falls behind: it hangs (SIGSTOP) and the master drops its link, so what the master takes from
    // now on is on the master only: without WAIT it is acknowledged all the same, and lost with the master.
    suite.cluster.pause(replica!);
    await askNode(victim, 'CLIENT', 'KILL', 'TYPE', 'replica');
    sentAtCut = new Map(run.streams.map((x) => [x.id, x.sent.length - 1]));
    // With replicas: 1 the master acknowledges nothing now (no replica confirms): it is killed 3 s after the cut.
    const since = Date.now();
    await until(() => killed !== undefined || Date.now() - since > 3000, WAIT_MS, () => 'no kill');
    kill();
    await killed;
    suite.cluster.resume(replica!);
    await suite.cluster.refresh(); // the replica serves the victim's slots now
    await suite.cluster.restartNode(victim); // back, as a replica of the promoted node
    await progressed(run.streams, ended, (s) => ackedAtKill.get(s.id)! + PROGRESS, 'after the failover');
  } finally {
    suite.cluster.resume(replica!);
    run.end();
    producers = await Promise.all(run.streams.map((s) => s.producer));
    live = await Promise.all(run.streams.map((s) => s.live));
  }
  // Everything acknowledged before the kill is in the log, as sent (read in a fresh log instance).
  const reader = clusterLog();
  const lost: string[] = [];
  for (const s of run.streams) {
    const acked = ackedAtKill.get(s.id)!;
    const stored = await reader.read({ responseId: s.id }, undefined).catch((e: unknown) => `${String(e)}`);
    if (typeof stored === 'string') lost.push(`${s.id}: ${stored}`);
    else {
      const k = s.sent.slice(0, acked + 1).findIndex((e, i) => JSON.stringify(e) !== JSON.stringify(stored[i]));
      const where = onVictim.has(s.id) ? ' (on the killed master)' : '';
      if (k >= 0) lost.push(`${s.id}${where}: acknowledged up to ${acked}, stored ${stored.length} events, the first one missing or different: ${k} (stored there: ${stored[k]?.sequence_number})`);
    }
  }
  expect(summary(lost)).toEqual([]);
  // And, as without the kill: producers completed, readers exact (readers deliver only what survives).
  const late = await lateReads(reader, run.streams);
  // With replicas: 0 (the default) Redis replicates after it answers: a live reader of the killed master's streams
  // may have delivered an event the promoted replica lacks (stored but not yet copied; its producer, never told,
  // sends it again). It then ends with EventLogError('lost') after an exact prefix, as docs/durable-log.md
  // says; never a gap or a repeat. With replicas: 1 (the next test) none may end so.
  expect(summary([...wrongOnes('producer', run.streams, producers), ...wrongOnes('live reader', run.streams, live, (id) => onVictim.has(id)), ...wrongOnes('late reader', run.streams, late)])).toEqual([]);
});
