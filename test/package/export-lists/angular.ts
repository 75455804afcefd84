// What openai-rx/angular exports (pinned by ../exports.spec.ts; see ./index.ts).
import type { EntryExports } from './index';

export const angular: EntryExports = {
  values: [
    'injectResponse',
    'responseSignals',
    'smoothText',
  ],
  types: [
    'InjectResponseOptions',
    'ResponseController',
    'ResponseObjectSignals',
    'ResponseSignals',
    'ResponseSignalsOptions',
    'ResponseSignalsRef',
    'ResponseStatus',
    'SmoothOption',
    'SmoothTextOptions',
  ],
};
