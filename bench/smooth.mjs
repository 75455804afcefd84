// smoothText's own cost, apart from the waiting it is for: text streamed in word-sized deltas through
// smoothText on a virtual-time scheduler (every release happens, none is waited for), per form and chunking.
//   node bench/smooth.mjs [--quick]  (reads dist/esm: `npm run build` first; or npm run bench -- --only smooth)
// The strings form reads each string it takes in (once per release): superlinear by design, see smoothText's doc.
// Prints ms per MB and the pieces released; a form whose time per MB grows with the size is not linear.
import { Observable, VirtualTimeScheduler } from 'rxjs';
import { outputText, smoothText } from '../dist/esm/index.js';

const WORDS = 'Reactive streams turn each server-sent event into a value, 今日はいい天気ですね。 👍🏽 combine.\n'.split(/(?<= )/);

function deltas(size) {
  const out = [];
  for (let i = 0, n = 0; n < size; i++) {
    const w = WORDS[i % WORDS.length];
    out.push({ type: 'response.output_text.delta', item_id: 'm', output_index: 0, content_index: 0, delta: w, logprobs: [], sequence_number: i });
    n += w.length;
  }
  return out;
}

/** Each delta 1 ms after the previous one (a fast model), smoothText at its defaults (10 ms, 250 ms maxLagMs). */
function run(events, chunking, form) {
  const scheduler = new VirtualTimeScheduler();
  // One delta per ms, each scheduling the next (a queue of all of them would cost the scheduler, not smoothText).
  const source = new Observable((s) => {
    scheduler.schedule(function (i) {
      if (i === events.length) return s.complete();
      s.next(events[i]);
      this.schedule(i + 1, 1);
    }, 0, 0);
  });
  let pieces = 0;
  const t0 = performance.now();
  const paced = form === 'events' ? source.pipe(smoothText({ chunking, scheduler })) : source.pipe(outputText(), smoothText({ chunking, scheduler }));
  paced.subscribe(() => pieces++);
  scheduler.flush();
  return { ms: performance.now() - t0, pieces };
}

console.log('form      chunking    size     ms     ms/MB   pieces');
for (const [form, chunking] of [['events', 'word'], ['events', 'grapheme'], ['events', 'line'], ['events', /[.!?]\s+/], ['strings', 'word']]) {
  for (const size of process.argv.includes('--quick') ? [100_000] : [100_000, 1_000_000]) {
    const events = deltas(size);
    run(events.slice(0, 2000), chunking, form); // warm-up
    const { ms, pieces } = run(events, chunking, form);
    console.log(`${form.padEnd(9)} ${String(chunking).padEnd(11)} ${String(size).padStart(8)} ${ms.toFixed(0).padStart(6)} ${(ms / (size / 1e6)).toFixed(0).padStart(8)} ${String(pieces).padStart(8)}`);
  }
}
