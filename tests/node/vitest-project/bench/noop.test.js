// The reference: N tests awaiting a no-op in place of a check.
import { test } from 'vitest';
import { N, calls, timed } from './common.js';

const noop = async (value) => value;
timed('noop');
for (let i = 0; i < N; i++) {
  test(`replay ${i}`, async () => {
    await noop(calls);
  });
}
