// The names each entry point exports, pinned by ../exports.spec.ts, one file per entry, one name per line: `values`
// exist at runtime (functions, classes, constants, io-ts codecs), `types` only in the declarations. Changing an
// entry's surface means changing its list here, in the same commit, so that review sees each name come or go.
// Order does not matter (the test sorts); a failing test's diff names each name added (+) or gone (-).
import { angular } from './angular';
import { codecs } from './codecs';
import { gateway } from './gateway';
import { operators } from './operators';
import { root } from './root';
import { streams } from './streams';
import { testing } from './testing';

export interface EntryExports {
  readonly values: readonly string[];
  readonly types: readonly string[];
}

export const EXPORTS: Readonly<Record<string, EntryExports>> = {
  'openai-rx': root,
  'openai-rx/operators': operators,
  'openai-rx/codecs': codecs,
  'openai-rx/testing': testing,
  'openai-rx/gateway': gateway,
  'openai-rx/angular': angular,
  'openai-rx/streams': streams,
};
