// Against a real toolscored (tests/test_node.sh sets TOOLSCORED): started
// on a private socket by the client itself; integers and floats, big
// integers and non-ASCII text survive a record and a show; one connection
// carries many pipelined checks; the summary of a run counts them and
// names the flaky one.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Connection, DaemonError, SnapshotError, findDaemon, resolveStore, toolSnapshot, toWire } from '../src/index.js';
import { connection } from '../src/client.js';
import { fetchReport } from '../src/reports.js';
import { tempDir } from './helpers.js';

const daemon = findDaemon();

test('a real daemon: values survive, pipelined checks, run summary', { skip: daemon.error }, async () => {
  const dir = tempDir();
  fs.chmodSync(dir, 0o700);
  const c = new Connection({ socketPath: path.join(dir, 'd.sock'), connectTimeoutMs: 10000 });
  const store = resolveStore(path.join(dir, 'snapshots'));
  try {
    const args = { int: 2, float: 1.5, whole: 3.0, big: 2 ** 40, neg: -(2 ** 40), u64: 2n ** 64n - 1n, text: 'é😀' };
    const calls = toWire([{ tool: 'f', args }]);
    const created = await c.request('check', { store, name: 'values', actual: calls });
    assert.equal(created.outcome, 'CREATED');
    const shown = await c.request('show', { store, name: 'values' });
    assert.deepEqual(shown.snapshot.calls[0].args, { int: 2, float: 1.5, whole: 3, big: 2 ** 40, neg: -(2 ** 40), u64: 2n ** 64n - 1n, text: 'é😀' });
    const text = fs.readFileSync(shown.file, 'utf8');
    assert.match(text, /"float": 1\.5,/);
    assert.match(text, /"big": 1099511627776,/);
    assert.match(text, /"u64": 18446744073709551615,/);
    assert.match(text, /"text": "é😀"/);
    await c.request('approve', { store, names: ['values'] });
    const { run } = await c.request('run.open', { store, label: 'node test' });
    const many = await Promise.all(
      Array.from({ length: 50 }, () => c.request('check', { store, name: 'values', actual: calls, run })),
    );
    assert.ok(many.every((r) => r.outcome === 'PASSED'));
    const drift = await c.request('check', { store, name: 'values', actual: toWire([{ tool: 'f', args: { ...args, float: 2.5 } }]), run });
    assert.equal(drift.outcome, 'FAILED');
    assert.match(drift.report, /\n  calls\[0\] f  args\.float: 1\.5 → 2\.5\n/);
    const summary = await c.request('run.close', { run });
    assert.equal(summary.summary, 'toolscore: 50 passed, 1 failed');
    // One name observed with two distinct lists: flaky, its line ready to print.
    assert.deepEqual(summary.flaky_lines, [
      'flaky: values \u2014 51 runs, 2 distinct; varied: calls[0].args.float (2 values)',
    ]);
    await c.request('stop', {});
  } finally {
    c.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a real daemon: rules through toolSnapshot, invalid rules, the run report', { skip: daemon.error }, async () => {
  const dir = tempDir();
  fs.chmodSync(dir, 0o700);
  const saved = { ...process.env };
  process.env.TOOLSCORE_SOCKET = path.join(dir, 'd.sock');
  process.env.TOOLSCORE_PROJECT_ROOT = dir;
  process.env.TOOLSCORE_DIR = path.join(dir, 'snapshots');
  for (const k of ['CI', 'TOOLSCORE_RUN', 'TOOLSCORE_RECORD_UPDATE']) delete process.env[k];
  const c = connection();
  try {
    const calls = (id) => [{ tool: 'book', args: { to: 'NYC', request_id: id } }];
    const rules = { ignore: ['book.args.request_id'] };
    assert.equal(await toolSnapshot(calls('a1'), { name: 'booking', rules }), null);
    await c.request('approve', { store: resolveStore(process.env.TOOLSCORE_DIR), names: ['booking'] });
    const { run } = await c.request('run.open', { store: resolveStore(process.env.TOOLSCORE_DIR) });
    process.env.TOOLSCORE_RUN = run;
    const passed = await toolSnapshot(calls('b2'), { name: 'booking', rules });
    assert.equal(passed.outcome, 'PASSED');
    await assert.rejects(toolSnapshot(calls('c3'), { name: 'booking' }), (e) => e instanceof SnapshotError);
    await assert.rejects(
      toolSnapshot(calls('d4'), { name: 'booking', rules: { ignroe: ['x'] } }),
      (e) => e instanceof DaemonError && e.code === 'invalid_rules' && /unknown key 'ignroe'/.test(e.message),
    );
    await c.request('run.close', { run });
    const report = JSON.parse(await fetchReport(c, run, 'json'));
    assert.equal(report.counts.passed, 1);
    assert.equal(report.counts.failed, 1);
    const xml = await fetchReport(c, run, 'junit');
    assert.match(xml, /<failure/);
    await c.request('stop', {});
  } finally {
    c.close();
    process.env = saved;
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
