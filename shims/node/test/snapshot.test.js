import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkParams, resetNames, testId } from '../src/snapshot.js';

const state = (testPath, currentTestName, update) => ({
  testPath,
  currentTestName,
  snapshotState: { _updateSnapshot: update ? 'all' : 'new' },
});

test('names: the file relative to the root, ::, the full test name; -2, -3 after', () => {
  process.env.TOOLSCORE_PROJECT_ROOT = '/proj';
  delete process.env.CI;
  delete process.env.TOOLSCORE_RECORD_UPDATE;
  delete process.env.TOOLSCORE_RUN;
  resetNames();
  const s = state('/proj/tests/agent.test.ts', 'booking > books a flight');
  assert.equal(testId({ testPath: s.testPath, testName: s.currentTestName }), 'tests/agent.test.ts::booking > books a flight');
  assert.equal(checkParams([], {}, s).params.name, 'tests/agent.test.ts::booking > books a flight');
  assert.equal(checkParams([], {}, s).params.name, 'tests/agent.test.ts::booking > books a flight-2');
  assert.equal(checkParams([], { name: 'mine' }, s).params.name, 'mine');
  assert.equal(checkParams([], {}, s).params.name, 'tests/agent.test.ts::booking > books a flight-3');
  assert.equal(checkParams([], {}, s).params.test, 'tests/agent.test.ts::booking > books a flight');
});

test('params: defaults left out, flags from the environment and the runner', () => {
  const s = state('/proj/a.test.js', 't', false);
  let p = checkParams([{ tool: 'x' }], { minScore: 0.9, strict: true, format: 'vercel-ai' }, s).params;
  assert.deepEqual(Object.keys(p), ['store', 'name', 'actual', 'format', 'min_score', 'strict', 'test']);
  process.env.CI = 'false';
  process.env.TOOLSCORE_RUN = 'r1';
  p = checkParams([], {}, state('/proj/a.test.js', 't', true)).params;
  assert.equal(p.ci, true);
  assert.equal(p.update, true);
  assert.equal(p.run, 'r1');
  delete process.env.CI;
  delete process.env.TOOLSCORE_RUN;
  assert.throws(() => checkParams([], { minScore: '1' }, s), /minScore must be a finite number/);
  assert.throws(() => checkParams([], { nmae: 'x' }, s), /unknown option nmae/);
  assert.throws(() => checkParams([], { rules: [] }, s), /rules/);
  assert.throws(() => checkParams([], {}, {}), /no test is running here/);
});
