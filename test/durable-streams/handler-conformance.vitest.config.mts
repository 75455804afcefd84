import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: { include: ['test/durable-streams/handler-conformance.vitest.mts'], root: '.', testTimeout: 30_000 },
});
