// A test run on the daemon for the global setups: open one (or join the one
// TOOLSCORE_RUN names, under `tsctl run`), hand it to every worker through
// the environment (TOOLSCORE_RUN, TOOLSCORE_DIR as the resolved store,
// TOOLSCORE_PROJECT_ROOT for test names), and at the end close it and print
// its one summary line for all workers, then the names claimed by more than
// one test (which fail the run in CI). A joined run belongs to whoever
// opened it: it is neither closed nor summarized here. The report files
// (TOOLSCORE_JUNIT, TOOLSCORE_JSON_REPORT, TOOLSCORE_HTML) are checked at
// the start and written at the end, also of a joined run (as it stands).
// The drift report's width is measured here, where the terminal is, and
// handed to the workers as TOOLSCORE_REPORT_WIDTH.

import { connection } from './client.js';
import { ciFromEnv, envValue } from './env.js';
import { ConnectionError } from './errors.js';
import { discardReport, fetchReport, reportProblem, wantedReports, writeReport } from './reports.js';
import { storePath, terminalWidth } from './snapshot.js';
import { VERSION } from './version.js';

const state = { run: null, opened: false, reports: [] };

/**
 * Open or join the run; root is the project root (Vitest's root, Jest's
 * rootDir). A daemon that cannot be reached or started is the one line of
 * its error: the runners print a global setup's error with its stack, whose
 * frames (this package's) say nothing to the user.
 */
export async function openRun(options = {}) {
  try {
    return await openOrJoin(options);
  } catch (err) {
    if (err instanceof ConnectionError) err.stack = `${err.name}: ${err.message}`;
    throw err;
  }
}

async function openOrJoin({ root = process.cwd(), label } = {}) {
  if (envValue('TOOLSCORE_PROJECT_ROOT') === undefined) process.env.TOOLSCORE_PROJECT_ROOT = root;
  const store = storePath(envValue('TOOLSCORE_PROJECT_ROOT'));
  process.env.TOOLSCORE_DIR = store;
  state.reports = wantedReports();
  for (const r of state.reports) {
    const why = reportProblem(r.path);
    if (why !== null) throw new Error(`toolscored: ${r.variable}=${r.path}: cannot write the report there: ${why}`);
  }
  const width = terminalWidth();
  if (width > 0) process.env.TOOLSCORE_REPORT_WIDTH = String(width);
  const joined = envValue('TOOLSCORE_RUN');
  if (joined !== undefined) {
    await connection().request('run.join', { run: joined });
    noteOtherBuild();
    state.run = joined;
    state.opened = false;
    return joined;
  }
  const params = { store };
  if (label !== undefined) params.label = label;
  const { run } = await connection().request('run.open', params);
  noteOtherBuild();
  process.env.TOOLSCORE_RUN = run;
  state.run = run;
  state.opened = true;
  return run;
}

/** Said once per run, by the global setup: the daemon is another build
 * than this package (one a client started and that was idle was replaced
 * already; docs/packaging.md). */
function noteOtherBuild() {
  const c = connection();
  if (VERSION !== null && c.serverVersion !== null && c.serverVersion !== VERSION)
    process.stderr.write(
      `toolscore: note: the daemon at ${c.socketPath} is toolscored ${c.serverVersion}, this package is ${VERSION} (another build; \`tsctl stop\` lets the next run start this package's daemon)\n`,
    );
}

/** The lines printed for a run's summary (run.close's result). */
export function summaryLines(summary) {
  const lines = [];
  if (summary.summary) lines.push(summary.summary);
  for (const line of summary.flaky_lines ?? []) lines.push(line);
  for (const d of summary.duplicates ?? [])
    lines.push(`toolscore: error: snapshot '${d.name}' was claimed by more than one test: ${d.tests.join(', ')}`);
  return lines;
}

/**
 * Write every report file asked for from run (null: none to write from,
 * why says so); a file that cannot be written is a printed error line, no
 * stale file left, and exit code 1.
 */
async function writeReports(run, why, print) {
  const reports = state.reports;
  state.reports = [];
  for (const r of reports) {
    let problem = why;
    if (problem === null) {
      try {
        writeReport(r.path, await fetchReport(connection(), run, r.format));
      } catch (err) {
        problem = err.message;
      }
    }
    if (problem !== null) {
      discardReport(r.path);
      print(`toolscore: error: ${r.variable}=${r.path} was not written: ${problem}`);
      process.exitCode = 1;
    }
  }
}

/**
 * Close the run opened by openRun, print its summary and write the report
 * files; a joined run is not closed (null), its reports are written as it
 * stands.
 */
export async function closeRun({ print = console.log } = {}) {
  const run = state.run;
  if (run === null) return null;
  if (!state.opened) {
    state.run = null;
    await writeReports(run, null, print);
    connection().close();
    return null;
  }
  state.opened = false;
  state.run = null;
  delete process.env.TOOLSCORE_RUN;
  let summary;
  try {
    summary = await connection().request('run.close', { run });
  } catch (err) {
    if (err.code !== 'not_found') {
      await writeReports(run, `the run could not be closed: ${err.message}`, print);
      throw err;
    }
    print(`toolscore: no summary: the daemon no longer knows run ${run} (it restarted during the run)`);
    await writeReports(run, 'the daemon no longer knows the run', print);
    connection().close();
    return null;
  }
  for (const line of summaryLines(summary)) print(line);
  if (ciFromEnv() && ((summary.duplicates ?? []).length > 0 || (summary.flaky_lines ?? []).length > 0))
    process.exitCode = 1;
  await writeReports(run, null, print);
  connection().close();
  return summary;
}
