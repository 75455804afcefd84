/**
 * The floors of the house (docs/architecture.md), enforced: imports point down.
 *
 *   floor 4   angular/, cli/                 what people run and bind
 *   floor 3   agent/, gateway/, testing/     products built from operators
 *   floor 2   operators/ (+ operators/internal, private to it)
 *   floor 1   lib/                           the ground: bytes → typed events, the event log
 *   index.ts  the root entry: the one file that gathers several floors
 *
 * Run by `npm run typecheck` (script lint:layers). Paths are relative to the directory depcruise runs in,
 * so the same file checks the repo and the fixture trees of test/architecture/layers.spec.ts.
 * When a rule fires, move the helper DOWN to the floor both sides stand on; do not exempt it here.
 */

// The files that ship in the package (package.json "files"); everything else is dev code.
const PACKAGE = '^(index\\.ts$|lib/|operators/|agent/|gateway/|testing/|angular/|cli/)';
// Dev-only folders: tests, marble specs, examples, build scripts, benchmarks. They are not published.
const DEV = '^(test|marbles|examples|scripts|bench)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'lib-is-the-ground',
      comment:
        'lib/ is the ground floor (events, SSE, decoding, transports, the event log, errors): it stands on ' +
        'nothing above it, so a browser app that needs only a decoder pulls in no operator, agent or gateway.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: PACKAGE, pathNot: '^lib/' },
    },
    {
      name: 'operators-stand-on-lib',
      comment:
        'operators/ transform typed events and stand on lib/ only: what is built from operators (agent, ' +
        'gateway, test servers, Angular, CLI) lives above them and may not be reached up for.',
      severity: 'error',
      from: { path: '^operators/' },
      to: { path: PACKAGE, pathNot: '^(lib|operators)/' },
    },
    {
      name: 'floor3-not-to-each-other',
      comment:
        'agent/, gateway/ and testing/ are separate products on the same floor (lib/ and operators/ below ' +
        'them): none of them imports another, so each can change (and ship in its own entry) alone. A ' +
        'helper two of them need moves down to lib/ or operators/.',
      severity: 'error',
      from: { path: '^(agent|gateway|testing)/' },
      to: { path: '^(agent|gateway|testing)/', pathNot: '^$1/' },
    },
    {
      name: 'operators-internal-is-private',
      comment:
        'operators/internal/ holds the operators\' working parts, free to change with them. Code outside ' +
        'operators/ imports what operators/ exports; a helper another floor needs moves down to lib/.',
      severity: 'error',
      from: { pathNot: '^operators/' },
      to: { path: '^operators/internal/' },
    },
    {
      name: 'nothing-imports-the-top',
      comment:
        'angular/ and cli/ are the top floor (what people bind and run): nothing else in the package ' +
        'imports them, and they do not import each other, or a lower floor would depend on Angular or on ' +
        'a command line.',
      severity: 'error',
      from: { path: '^([^/]+)' },
      to: { path: '^(angular|cli)/', pathNot: '^$1/' },
    },
    {
      name: 'root-entry-gathers-only',
      comment:
        'index.ts, the root entry, gathers lib/, operators/ and agent/ into one public surface; a file on ' +
        'those floors (or beside them) importing it would import every floor. Only the top floor (angular/, ' +
        'cli/), which stands on all of them as a user does, may import it.',
      severity: 'error',
      from: { path: '^(lib|operators|agent|gateway|testing)/' },
      to: { path: '^index\\.ts$' },
    },
    {
      name: 'package-not-to-dev-code',
      comment:
        'What ships (index.ts, lib, operators, agent, gateway, testing, angular, cli) never imports tests, ' +
        'marble specs, examples, scripts or benchmarks: they are not in the published package.',
      severity: 'error',
      from: { path: PACKAGE },
      to: { path: DEV },
    },
    {
      name: 'only-angular-imports-angular',
      comment:
        '@angular/* is an optional peer dependency: only angular/ (its own entry, openai-rx/angular) may ' +
        'import it, so no other entry needs Angular installed.',
      severity: 'error',
      from: { path: PACKAGE, pathNot: '^angular/' },
      to: { path: '(^|/)node_modules/@angular/|^@angular/' },
    },
    {
      name: 'no-cycle-between-floors',
      comment:
        'No two top-level folders import each other, even through other files: a folder-level cycle ' +
        'means two floors that can only change together. (Cycles between subfolders of one floor are ' +
        'that floor\'s business.)',
      severity: 'error',
      scope: 'folder',
      from: { path: '^([^/]+)' },
      to: { circular: true, pathNot: '^$1(/|$)' },
    },
    {
      name: 'not-to-unresolvable',
      comment:
        'An import that does not resolve cannot be checked against the floors (and would fail at run time).',
      severity: 'error',
      from: { path: PACKAGE },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Resolve './x.js' to x.ts the way tsc does (moduleResolution Bundler).
    tsConfig: { fileName: 'tsconfig.json' },
    // `import type` counts: a type from a higher floor is still a dependency on it.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
