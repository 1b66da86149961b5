// The report files (src/reports.js): the variables read and paths made
// absolute against the cwd, paths that cannot be written named before the
// tests, the atomic write (nothing else left in the directory, a failure
// leaves no temporary file), and every page of run.report joined in order.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Connection } from '../src/index.js';
import { discardReport, fetchReport, reportProblem, wantedReports, writeReport } from '../src/reports.js';
import { fakeServer, helloOk, tempDir } from './helpers.js';

test('the variables asked for, relative to the cwd', () => {
  assert.deepEqual(wantedReports({ TOOLSCORE_JUNIT: 'out/j.xml', TOOLSCORE_HTML: '/abs/r.html', TOOLSCORE_JSON_REPORT: '' }, '/proj'), [
    { format: 'junit', variable: 'TOOLSCORE_JUNIT', path: '/proj/out/j.xml' },
    { format: 'html', variable: 'TOOLSCORE_HTML', path: '/abs/r.html' },
  ]);
  assert.deepEqual(wantedReports({}, '/proj'), []);
});

test('paths that cannot be written, and the atomic write', () => {
  const dir = tempDir();
  try {
    fs.writeFileSync(path.join(dir, 'afile'), 'x');
    assert.equal(reportProblem(path.join(dir, 'afile', 'r.xml')), `${path.join(dir, 'afile')} is not a directory`);
    assert.equal(reportProblem(dir), 'it is a directory');
    const target = path.join(dir, 'new', 'deeper', 'r.xml');
    assert.equal(reportProblem(target), null); // its directories are made
    assert.deepEqual(fs.readdirSync(path.join(dir, 'new', 'deeper')), []);
    fs.writeFileSync(target, 'old');
    writeReport(target, 'née <ok/>');
    assert.equal(fs.readFileSync(target, 'utf8'), 'née <ok/>');
    assert.deepEqual(fs.readdirSync(path.dirname(target)), ['r.xml']);
    // A failed write (the target is a non-empty directory) leaves no temporary file.
    const blocked = path.join(dir, 'blocked');
    fs.mkdirSync(path.join(blocked, 'inside'), { recursive: true });
    assert.throws(() => writeReport(blocked, 'x'));
    assert.deepEqual(fs.readdirSync(dir).sort(), ['afile', 'blocked', 'new']);
    discardReport(target);
    assert.equal(fs.existsSync(target), false);
    discardReport(blocked); // never a directory
    assert.equal(fs.existsSync(blocked), true);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('every page of run.report, joined in order', async () => {
  const seen = [];
  const pages = { 0: { text: 'abc', next: 3 }, 3: { text: 'déf', next: 7 }, 7: { text: 'g', next: null } };
  const srv = await fakeServer((req, conn) => {
    if (req.method === 'hello') return conn.reply(helloOk(req));
    const params = req.params;
    seen.push(params);
    const p = pages[params.offset ?? 0];
    const result = { format: params.format, text: p.text, offset: params.offset ?? 0, total: 8, next: p.next };
    conn.reply({ id: req.id, ok: true, result });
  });
  const c = new Connection({ socketPath: srv.socketPath, autoStart: false });
  try {
    assert.equal(await fetchReport(c, 'r1', 'junit'), 'abcdéfg');
    assert.deepEqual(seen, [
      { run: 'r1', format: 'junit' },
      { run: 'r1', format: 'junit', offset: 3 },
      { run: 'r1', format: 'junit', offset: 7 },
    ]);
    // A next that does not move forward is refused, not followed forever.
    pages[0] = { text: 'x', next: 0 };
    await assert.rejects(fetchReport(c, 'r1', 'json'), /next is no offset after this page/);
  } finally {
    c.close();
    await srv.close();
  }
});
