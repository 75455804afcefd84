/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/marbles'],
  testMatch: ['**/*.spec.ts', '**/*-spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }] },
  // Sources import './x.js' (ESM style); jest resolves the .ts file.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 20000,
  // Every test must leave no socket, server or timer behind (.ci/run fails when jest reports one).
  detectOpenHandles: true,
};
