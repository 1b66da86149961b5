// The run's report files (TOOLSCORE_JUNIT, TOOLSCORE_JSON_REPORT,
// TOOLSCORE_HTML; docs/node.md "Report files"): paths relative to the
// directory the runner was started in, checked by the global setup before
// any test runs, and written by the teardown from the daemon's run.report
// (every page joined), atomically: a temporary file beside the report,
// flushed to disk and renamed over it, so a report is there whole or not at
// all. A path that is not a regular file (/dev/stdout, a FIFO) is written
// directly.

import fs from 'node:fs';
import path from 'node:path';
import { envValue } from './env.js';

const FORMATS = [
  ['junit', 'TOOLSCORE_JUNIT'],
  ['json', 'TOOLSCORE_JSON_REPORT'],
  ['html', 'TOOLSCORE_HTML'],
];

/** The report files asked for: [{format, variable, path (absolute)}]. */
export function wantedReports(env = process.env, cwd = process.cwd()) {
  const out = [];
  for (const [format, variable] of FORMATS) {
    const value = envValue(variable, env);
    if (value !== undefined) out.push({ format, variable, path: path.resolve(cwd, value) });
  }
  return out;
}

function special(p) {
  try {
    const st = fs.statSync(p);
    return !st.isFile() && !st.isDirectory();
  } catch {
    return false;
  }
}

function tempName(p) {
  return path.join(path.dirname(p), `.${path.basename(p)}.${process.pid}.tmp`);
}

/** Why the report cannot be written at p, or null (its directory is made). */
export function reportProblem(p) {
  if (special(p)) {
    try {
      fs.accessSync(p, fs.constants.W_OK);
      return null;
    } catch (err) {
      return err.message;
    }
  }
  try {
    if (fs.statSync(p).isDirectory()) return 'it is a directory';
  } catch {
    /* absent: fine */
  }
  let existing = path.dirname(p);
  while (!fs.existsSync(existing)) existing = path.dirname(existing);
  if (!fs.statSync(existing).isDirectory()) return `${existing} is not a directory`;
  try {
    fs.mkdirSync(path.dirname(p), { recursive: true });
    const probe = tempName(p);
    fs.closeSync(fs.openSync(probe, 'wx'));
    fs.unlinkSync(probe);
  } catch (err) {
    return err.message;
  }
  return null;
}

/** Write text (UTF-8) to p atomically; throws, leaving nothing behind. */
export function writeReport(p, text) {
  if (special(p)) {
    fs.writeFileSync(p, text);
    return;
  }
  fs.mkdirSync(path.dirname(p), { recursive: true });
  const tmp = tempName(p);
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, p);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** Remove a stale regular file at p (a report that could not be written). */
export function discardReport(p) {
  try {
    if (fs.lstatSync(p).isFile()) fs.unlinkSync(p);
  } catch {
    /* absent */
  }
}

/** The run's report in format, every page of run.report joined. */
export async function fetchReport(conn, run, format) {
  const parts = [];
  let offset = 0;
  for (;;) {
    const params = { run, format };
    if (offset > 0) params.offset = offset;
    const page = await conn.request('run.report', params);
    if (typeof page?.text !== 'string') throw new Error('run.report: the reply has no text');
    parts.push(page.text);
    if (page.next === null || page.next === undefined) break;
    const next = Number(page.next);
    if (!Number.isInteger(next) || next <= offset) throw new Error("run.report: the reply's next is no offset after this page");
    offset = next;
  }
  return parts.join('');
}
