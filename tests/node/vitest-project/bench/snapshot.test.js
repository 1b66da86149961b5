// Vitest's own snapshot on the same calls: N tests, one file snapshot each.
import { expect, test } from 'vitest';
import { N, calls, timed } from './common.js';

timed('snapshot');
for (let i = 0; i < N; i++) {
  test(`replay ${i}`, () => {
    expect(calls).toMatchSnapshot();
  });
}
