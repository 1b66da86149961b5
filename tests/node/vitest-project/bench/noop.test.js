// The reference: the same N tests with a no-op async check in place of the matcher.
import { expect, test } from 'vitest';
import { N, calls } from './calls.js';

const noop = async (value) => value;

for (let i = 0; i < N; i++) {
  test(`replay ${i}`, async () => {
    expect(await noop(calls)).toBe(calls);
  });
}
