// The reference: N tests awaiting a no-op in place of a check.
const { N, calls } = require('../../bench/calls.cjs');
require('../../bench/times.cjs').timeSuite('noop', beforeAll, afterAll);

const noop = async (value) => value;
for (let i = 0; i < N; i++) {
  test(`replay ${i}`, async () => {
    await noop(calls);
  });
}
