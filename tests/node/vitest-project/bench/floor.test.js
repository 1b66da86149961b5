// The floor: N tests each making one raw round trip of the calls' JSON.
import { afterAll, test } from 'vitest';
import { N, calls, floorCheck, floorClose, timed } from './common.js';

timed('floor');
afterAll(floorClose);
for (let i = 0; i < N; i++) {
  test(`replay ${i}`, async () => {
    await floorCheck(calls);
  });
}
