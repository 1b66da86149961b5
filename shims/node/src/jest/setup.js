// Jest setupFilesAfterEnv entry: registers toMatchToolSnapshot on Jest's
// expect and restarts the -2, -3 name counters of each test.

import { toMatchToolSnapshot } from '../matcher.js';
import { currentTest, registerRunner } from '../runner.js';
import { forgetTest } from '../snapshot.js';

const jestExpect = globalThis.expect;
if (typeof jestExpect?.extend !== 'function')
  throw new Error('toolscored/jest/setup must be listed in setupFilesAfterEnv (no Jest expect here)');
registerRunner('jest', jestExpect);
jestExpect.extend({ toMatchToolSnapshot });
globalThis.beforeEach(() => {
  forgetTest(currentTest());
});
