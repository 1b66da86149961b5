// The benchmark's Vitest configuration (tests/bench/run.sh, part "node"):
// one worker; Vitest's own snapshots go to $TS_BENCH_SNAPDIR, not here.
import path from 'node:path';
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
    resolveSnapshotPath: (testPath, ext) =>
      path.join(process.env.TS_BENCH_SNAPDIR ?? path.join(path.dirname(testPath), '__snapshots__'),
        `vitest-${path.basename(testPath)}${ext}`),
  },
});
