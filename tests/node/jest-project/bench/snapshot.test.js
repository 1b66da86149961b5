// Jest's own snapshot on the same calls: N tests, one file snapshot each.
const { N, calls } = require('../../bench/calls.cjs');
require('../../bench/times.cjs').timeSuite('snapshot', beforeAll, afterAll);

for (let i = 0; i < N; i++) {
  test(`replay ${i}`, () => {
    expect(calls).toMatchSnapshot();
  });
}
