import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkParams, resetNames, terminalWidth, testId } from '../src/snapshot.js';

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
  for (const k of ['TOOLSCORE_REPORT_WIDTH', 'COLUMNS', 'TOOLSCORE_NO_JSON_DIFF']) delete process.env[k];
  const s = state('/proj/a.test.js', 't', false);
  let p = checkParams([{ tool: 'x' }], { minScore: 0.9, strict: true, format: 'vercel-ai' }, s).params;
  assert.deepEqual(Object.keys(p), ['store', 'name', 'actual', 'format', 'min_score', 'strict', 'test', 'source', 'tsctl']);
  assert.equal(p.source, 'node'); // no runner registered here: the snapshot's source
  assert.equal(p.tsctl, 'npx tsctl'); // the printed commands, as a project's user runs tsctl
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

test('rules: a plain object sent as the check\'s rules, anything else a TypeError', () => {
  const s = state('/proj/a.test.js', 't', false);
  const rules = { ignore: ['book.args.id'], match: { 'book.args.seat': { type: true } } };
  assert.deepEqual(checkParams([], { rules }, s).params.rules, rules);
  assert.deepEqual(checkParams([], { rules: Object.assign(Object.create(null), { order: 'unordered' }) }, s).params.rules, { order: 'unordered' });
  assert.equal('rules' in checkParams([], { rules: null }, s).params, false);
  for (const bad of [[], 'ignore', 3, new Map(), new (class Rules {})()])
    assert.throws(() => checkParams([], { rules: bad }, s), (e) => e instanceof TypeError && /option rules must be a plain object/.test(e.message));
  // Values inside are converted as any other (a cycle names its path).
  const cyc = { ignore: [] };
  cyc.ignore.push(cyc);
  assert.throws(() => checkParams([], { rules: cyc }, s), /rules/);
});

test('width and JSON diff: TOOLSCORE_REPORT_WIDTH, else COLUMNS, else the tty; TOOLSCORE_NO_JSON_DIFF', () => {
  const s = state('/proj/a.test.js', 't', false);
  for (const k of ['TOOLSCORE_REPORT_WIDTH', 'COLUMNS', 'TOOLSCORE_NO_JSON_DIFF']) delete process.env[k];
  assert.equal(terminalWidth({}, { isTTY: true, columns: 132 }), 132);
  assert.equal(terminalWidth({}, { isTTY: false, columns: 132 }), 0);
  assert.equal(terminalWidth({ COLUMNS: '90' }, { isTTY: true, columns: 132 }), 90);
  assert.equal(terminalWidth({ TOOLSCORE_REPORT_WIDTH: '61', COLUMNS: '90' }, undefined), 61);
  for (const bad of ['0', '-3', '70000', '12x', ' 80'])
    assert.equal(terminalWidth({ TOOLSCORE_REPORT_WIDTH: bad }, undefined), 0, bad);
  process.env.TOOLSCORE_REPORT_WIDTH = '72';
  process.env.TOOLSCORE_NO_JSON_DIFF = 'yes';
  const p = checkParams([], {}, s).params;
  assert.equal(p.width, 72);
  assert.equal(p.json_diff, false);
  delete process.env.TOOLSCORE_REPORT_WIDTH;
  delete process.env.TOOLSCORE_NO_JSON_DIFF;
  const q = checkParams([], {}, s).params;
  assert.equal('width' in q || 'json_diff' in q, false);
});
