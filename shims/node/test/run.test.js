// The lines a run's summary prints (summaryLines): the summary line, the
// flaky names' lines as the daemon wrote them, then the duplicate claims.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summaryLines } from '../src/run.js';

test('summary lines: the summary, flaky lines, duplicate claims', () => {
  const summary = {
    summary: 'toolscore: 3 passed',
    flaky_lines: ['flaky: seat \u2014 3 runs, 2 distinct; varied: calls[0].args.seat (2 values)'],
    duplicates: [{ name: 'shared', tests: ['a.test.js::one', 'b.test.js::two'] }],
  };
  assert.deepEqual(summaryLines(summary), [
    'toolscore: 3 passed',
    'flaky: seat \u2014 3 runs, 2 distinct; varied: calls[0].args.seat (2 values)',
    "toolscore: error: snapshot 'shared' was claimed by more than one test: a.test.js::one, b.test.js::two",
  ]);
  // A daemon that sends no flaky lines: nothing more.
  assert.deepEqual(summaryLines({ summary: 'toolscore: 1 passed', duplicates: [] }), ['toolscore: 1 passed']);
});
