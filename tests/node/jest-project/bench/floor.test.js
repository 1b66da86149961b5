// The floor: N tests each making one raw round trip of the calls' JSON.
const { N, calls } = require('../../bench/calls.cjs');
const { floorCheck, floorClose } = require('../../bench/floor.cjs');
require('../../bench/times.cjs').timeSuite('floor', beforeAll, afterAll);

afterAll(floorClose);
for (let i = 0; i < N; i++) {
  test(`replay ${i}`, async () => {
    await floorCheck(calls);
  });
}
