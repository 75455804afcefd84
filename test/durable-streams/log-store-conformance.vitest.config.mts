import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['test/durable-streams/log-store-conformance.vitest.mts'], root: '.', testTimeout: 30_000 },
});
