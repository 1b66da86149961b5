// What every suite of the benchmark shares (tests/bench/run.sh, part
// "node"): the calls, N, the suite's timer, the floor (tests/node/bench).
import { createRequire } from 'node:module';
import { afterAll, beforeAll } from 'vitest';

const require = createRequire(import.meta.url);
const { N, calls } = require('../../bench/calls.cjs');
const { floorCheck, floorClose } = require('../../bench/floor.cjs');
const { timeSuite } = require('../../bench/times.cjs');

export { N, calls, floorCheck, floorClose };

export function timed(form) {
  timeSuite(form, beforeAll, afterAll);
}
