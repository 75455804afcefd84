// vitest for the conformance suite only: its default include would pick up the repository's jest *.spec.ts files.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['suite.test.mjs'],
    watch: false,
  },
});
