/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test', '<rootDir>/marbles'],
  testMatch: ['**/*.spec.ts', '**/*-spec.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }],
    // Angular ships ES modules only (.mjs): test/angular loads them through the same compiler, as CommonJS.
    '^.+/node_modules/@angular/.+\\.m?js$': ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true, target: 'ES2022' }, diagnostics: false }],
  },
  // Only Angular's packages are transformed out of node_modules (no other suite loads them).
  transformIgnorePatterns: ['/node_modules/(?!@angular/)'],
  // Sources import './x.js' (ESM style); jest resolves the .ts file.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 20000,
  // Every test must leave no socket, server or timer behind (.ci/run fails when jest reports one).
  detectOpenHandles: true,
};
