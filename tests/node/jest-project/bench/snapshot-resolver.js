// Jest's snapshot files of the benchmark, in $TS_BENCH_SNAPDIR.
const path = require('node:path');

const dir = () => process.env.TS_BENCH_SNAPDIR || path.join(__dirname, '__snapshots__');

module.exports = {
  resolveSnapshotPath: (testPath, ext) => path.join(dir(), `jest-${path.basename(testPath)}${ext}`),
  resolveTestPath: (snapPath, ext) =>
    path.join(__dirname, path.basename(snapPath, ext).replace(/^jest-/, '')),
  testPathForConsistencyCheck: path.join(__dirname, 'noop.test.js'),
};
