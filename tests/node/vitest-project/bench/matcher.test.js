// N replays of approved 10-call snapshots through toMatchToolSnapshot (the
// names are those of the other suites and runner: one store of N snapshots).
import { expect, test } from 'vitest';
import { N, calls, timed } from './common.js';

timed('matcher');
for (let i = 0; i < N; i++) {
  test(`replay ${i}`, async () => {
    await expect(calls).toMatchToolSnapshot({ name: `bench ${i}` });
  });
}
