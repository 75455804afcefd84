// Imports one built entry of the package in this fresh process and prints, as JSON, the work the import did:
// what it added to globalThis or to process's listeners, the timers and tasks it scheduled, the handles it left
// open, the RxJS subscriptions it made, and the warm-up objects it made (lib/warmup.ts). package.json says
// "sideEffects": false: every count must be zero (test/package/side-effects.spec.ts).
//
//   node test/package/import-probe.mjs <require|import> <built entry file> [<the build's lib/warmup.js, same format>]
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [how, entry, registry] = process.argv.slice(2);
const req = createRequire(entry);
const load = (spec) => (how === 'require' ? req(spec) : import(spec.startsWith('/') ? pathToFileURL(spec).href : spec));

// The dependencies first: what they do at import is theirs, not the package's.
const deps = ['rxjs', 'io-ts', 'fp-ts', '@angular/core', 'ws', 'ioredis'];
for (const d of deps) {
  try {
    await load(how === 'require' ? d : pathToFileURL(req.resolve(d)).href);
  } catch {
    // not installed, or not loadable this way: the entry cannot import it either
  }
}
const { Observable } = req('rxjs');

const report = { globals: [], listeners: [], scheduled: [], handles: [], subscribes: 0, warmedUp: [] };
const keys = () => new Set([...Object.getOwnPropertyNames(globalThis), ...Object.getOwnPropertySymbols(globalThis).map(String)]);
const listeners = () => new Map(process.eventNames().map((n) => [String(n), process.listenerCount(n)]));
const globalsBefore = keys();
const listenersBefore = listeners();
const handlesBefore = process.getActiveResourcesInfo().length;

for (const name of ['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask']) {
  const original = globalThis[name];
  globalThis[name] = function (...args) {
    report.scheduled.push(name);
    return original.apply(this, args);
  };
}
const subscribe = Observable.prototype.subscribe;
Observable.prototype.subscribe = function (...args) {
  report.subscribes++;
  return subscribe.apply(this, args);
};

await load(entry);

Observable.prototype.subscribe = subscribe;
report.globals = [...keys()].filter((k) => !globalsBefore.has(k) && !['setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask'].includes(k));
report.listeners = [...listeners()].filter(([n, c]) => c !== (listenersBefore.get(n) ?? 0)).map(([n]) => n);
report.handles = process.getActiveResourcesInfo().slice(handlesBefore);
// The warm-up registry of the same build and module format as the entry: the same module instance.
if (registry !== undefined) report.warmedUp = [...(await load(registry)).warmedUp()];
process.stdout.write(`${JSON.stringify(report)}\n`);
