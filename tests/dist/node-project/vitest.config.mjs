// vitest.config.mjs: an ES module config in a CommonJS project (a plain .js
// config would be loaded through Vite's deprecated CommonJS API, with a warning).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['toolscored/vitest/global-setup'],
    setupFiles: ['toolscored/vitest/setup'],
    include: ['tests/vitest/**/*.test.mjs'],
  },
});
