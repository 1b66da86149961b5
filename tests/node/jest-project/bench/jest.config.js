// The benchmark's Jest configuration (tests/bench/run.sh, part "node"), run
// with --runInBand; Jest's own snapshots go to $TS_BENCH_SNAPDIR, not here.
module.exports = {
  rootDir: __dirname,
  globalSetup: 'toolscored/jest/global-setup',
  globalTeardown: 'toolscored/jest/global-teardown',
  setupFilesAfterEnv: ['toolscored/jest/setup'],
  testMatch: ['<rootDir>/*.test.js'],
  snapshotResolver: '<rootDir>/snapshot-resolver.js',
};
