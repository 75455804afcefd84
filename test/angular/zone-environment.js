// The jest environment of the Zone.js test (zone.spec.ts): the Angular one, with a fetch that returns this
// realm's promises. Zone.js patches `then` on the constructor of whatever fetch returns; Node's fetch returns the
// outer realm's Promise, which every test file of a jest worker shares, so that patch would outlive the file.
// A browser's fetch returns its own realm's Promise (the one Zone.js patches anyway): so does this one. Teardown
// checks that nothing Zone.js did reached the outer realm.
const AngularEnvironment = require('./environment.js');

const OUTER = [
  [Promise.prototype, 'then'], [globalThis, 'setTimeout'], [globalThis, 'setInterval'], [globalThis, 'setImmediate'],
  [globalThis, 'queueMicrotask'], [globalThis, 'fetch'], [EventTarget.prototype, 'addEventListener'],
  [EventTarget.prototype, 'removeEventListener'], [AbortSignal.prototype, 'addEventListener'],
];

class ZoneEnvironment extends AngularEnvironment {
  constructor(config, context) {
    super(config, context);
    this.outer = OUTER.map(([o, k]) => o[k]);
    const nodeFetch = this.global.fetch;
    const RealmPromise = this.global.Promise;
    this.global.fetch = function fetch(input, init) {
      return RealmPromise.resolve(nodeFetch(input, init));
    };
  }

  async teardown() {
    const touched = OUTER.filter(([o, k], i) => o[k] !== this.outer[i]).map(([, k]) => k);
    await super.teardown();
    if (touched.length > 0) throw new Error(`Zone.js patched the outer realm (shared by the worker's other test files): ${touched.join(', ')}`);
  }
}

module.exports = ZoneEnvironment;
