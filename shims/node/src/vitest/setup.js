// Vitest setupFiles entry: registers toMatchToolSnapshot on Vitest's expect
// and restarts the -2, -3 name counters of each test.

import { beforeEach, expect } from 'vitest';
import { toMatchToolSnapshot } from '../matcher.js';
import { currentTest, registerRunner, setTestContext } from '../runner.js';
import { forgetTest } from '../snapshot.js';

registerRunner('vitest', expect);
expect.extend({ toMatchToolSnapshot });
beforeEach((context) => {
  setTestContext(context);
  forgetTest(currentTest());
});
