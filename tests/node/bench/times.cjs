// The time of one suite's tests: from before its first test to after its
// last, appended as "FORM MS" to $TS_BENCH_TIMES.
const fs = require('node:fs');

exports.timeSuite = function timeSuite(form, beforeAll, afterAll) {
  let t0 = 0;
  beforeAll(() => {
    t0 = performance.now();
  });
  afterAll(() => {
    const ms = performance.now() - t0;
    if (process.env.TS_BENCH_TIMES) fs.appendFileSync(process.env.TS_BENCH_TIMES, `${form} ${ms.toFixed(3)}\n`);
  });
};
