// Lanes: 16 lanes × N events over one loopback WebSocket through laneMux, against one lane of N events.
// The server is openai-rx/testing's WebSocket server in a child process; each lane's text is checked.
import { spawn } from 'node:child_process';
import { from, lastValueFrom, reduce } from 'rxjs';

function startWsServer() {
  const child = spawn(process.execPath, [new URL('./ws-server.mjs', import.meta.url).pathname], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (d) => {
      const m = /listening (\S+)/.exec(String(d));
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`ws server exited (${code})`)));
  });
}

const expectedText = (n) => Array.from({ length: n }, (_, i) => `d${i} `).join('');

async function runLanes(rx, url, lanes, deltas, validate) {
  const socket = rx.connectResponsesSocket({ url, apiKey: 'bench', validate, heartbeatMs: 0 });
  try {
    const requests = Array.from({ length: lanes }, (_, i) => ({
      type: 'response.create', stream_id: `lane-${i}`, model: 'gpt-5.4-nano', input: 'bench', metadata: { loopback_deltas: String(deltas) },
    }));
    const t0 = performance.now();
    const out = await lastValueFrom(from(requests).pipe(
      rx.laneMux(socket),
      reduce((acc, e) => {
        if (rx.isLaneError(e)) throw e;
        acc.events++;
        if (e.type === 'response.output_text.delta') acc.text.set(e.stream_id, (acc.text.get(e.stream_id) ?? '') + e.delta);
        return acc;
      }, { events: 0, text: new Map() }),
    ));
    const ms = performance.now() - t0;
    const want = expectedText(deltas);
    if (out.text.size !== lanes || [...out.text.values()].some((t) => t !== want)) throw new Error('lanes: wrong text');
    return { ms, events: out.events };
  } finally {
    socket.close();
  }
}

export async function lanesSection({ rx, quick, table, fmt, runs = 3 }) {
  if (typeof rx.laneMux !== 'function' || typeof rx.connectResponsesSocket !== 'function') {
    console.log('\n## Lanes — not available yet (laneMux / connectResponsesSocket missing from dist)');
    return { status: 'not available yet' };
  }
  const deltas = quick ? 2_000 : 10_000;
  const server = await startWsServer();
  try {
    const rows = [];
    for (const validate of ['strict', 'off']) {
      await runLanes(rx, server.url, 16, 500, validate); // warm-up
      const per = { 1: [], 16: [] };
      let events = {};
      for (let i = 0; i < runs; i++) {
        for (const lanes of [1, 16]) {
          const r = await runLanes(rx, server.url, lanes, deltas, validate);
          per[lanes].push((r.ms * 1e6) / r.events);
          events[lanes] = r.events;
        }
      }
      const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
      const one = med(per[1]);
      const sixteen = med(per[16]);
      rows.push({ validate, deltasPerLane: deltas, events1: events[1], events16: events[16], nsPerEvent1: one, nsPerEvent16: sixteen, overhead: sixteen / one - 1 });
    }
    console.log(`\n## Lanes — laneMux over one loopback WebSocket, ${deltas.toLocaleString('en')} deltas per lane; target: 16 lanes add at most 20% per event`);
    table(['validate', '1 lane ns/event', '16 lanes ns/event', '16 vs 1'],
      rows.map((r) => [r.validate, fmt(r.nsPerEvent1, 0), fmt(r.nsPerEvent16, 0), `${r.overhead >= 0 ? '+' : ''}${fmt(r.overhead * 100, 0)}%`]));
    return { status: 'ok', rows };
  } finally {
    server.child.kill();
  }
}
