// The benchmark's Vitest configuration (tests/bench/run.sh, part "node"):
// the two suites run one after the other in one worker.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    globalSetup: ['toolscored/vitest/global-setup'],
    setupFiles: ['toolscored/vitest/setup'],
    include: ['*.test.js'],
    fileParallelism: false,
    pool: 'forks',
    poolOptions: { forks: { singleFork: true } },
  },
});
