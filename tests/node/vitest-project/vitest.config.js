import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['toolscored/vitest/global-setup'],
    setupFiles: ['toolscored/vitest/setup'],
    include: ['tests/**/*.test.js'],
  },
});
