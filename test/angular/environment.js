// The jest environment of the Angular tests: jsdom (TestBed's platform needs a document) with Node's own
// fetch, streams, text codecs and abort signals, so that the library's real transports run against loopback
// servers as they do in a browser.
const { TestEnvironment } = require('jest-environment-jsdom');

const FROM_NODE = ['fetch', 'Request', 'Response', 'Headers', 'FormData', 'ReadableStream', 'WritableStream', 'TransformStream', 'TextEncoder', 'TextDecoder', 'TextDecoderStream', 'AbortController', 'AbortSignal', 'structuredClone', 'setImmediate', 'clearImmediate'];

class AngularEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of FROM_NODE) if (globalThis[name] !== undefined) this.global[name] = globalThis[name];
  }
}

module.exports = AngularEnvironment;
