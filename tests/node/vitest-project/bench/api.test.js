// N replays of approved 10-call snapshots through toolSnapshot (no matcher),
// the same snapshots as matcher.test.js.
import { test } from 'vitest';
import { toolSnapshot } from 'toolscored';
import { N, calls, timed } from './common.js';

timed('api');
for (let i = 0; i < N; i++) {
  test(`replay ${i}`, async () => {
    await toolSnapshot(calls, { name: `bench ${i}` });
  });
}
