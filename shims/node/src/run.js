// A test run on the daemon for the global setups: open one (or join the one
// TOOLSCORE_RUN names, under `tsctl run`), hand it to every worker through
// the environment (TOOLSCORE_RUN, TOOLSCORE_DIR as the resolved store,
// TOOLSCORE_PROJECT_ROOT for test names), and at the end close it and print
// its one summary line for all workers, then the names claimed by more than
// one test (which fail the run in CI). A joined run belongs to whoever
// opened it: it is neither closed nor summarized here.

import { connection } from './client.js';
import { ciFromEnv, envValue } from './env.js';
import { storePath } from './snapshot.js';

const state = { run: null, opened: false };

/** Open or join the run; root is the project root (Vitest's root, Jest's rootDir). */
export async function openRun({ root = process.cwd(), label } = {}) {
  if (envValue('TOOLSCORE_PROJECT_ROOT') === undefined) process.env.TOOLSCORE_PROJECT_ROOT = root;
  const store = storePath(envValue('TOOLSCORE_PROJECT_ROOT'));
  process.env.TOOLSCORE_DIR = store;
  const joined = envValue('TOOLSCORE_RUN');
  if (joined !== undefined) {
    await connection().request('run.join', { run: joined });
    state.run = joined;
    state.opened = false;
    return joined;
  }
  const params = { store };
  if (label !== undefined) params.label = label;
  const { run } = await connection().request('run.open', params);
  process.env.TOOLSCORE_RUN = run;
  state.run = run;
  state.opened = true;
  return run;
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

/** Close the run opened by openRun and print its summary; null when joined. */
export async function closeRun({ print = console.log } = {}) {
  if (!state.opened) return null;
  const run = state.run;
  state.opened = false;
  state.run = null;
  delete process.env.TOOLSCORE_RUN;
  let summary;
  try {
    summary = await connection().request('run.close', { run });
  } catch (err) {
    if (err.code !== 'not_found') throw err;
    print(`toolscore: no summary: the daemon no longer knows run ${run} (it restarted during the run)`);
    connection().close();
    return null;
  }
  for (const line of summaryLines(summary)) print(line);
  if (ciFromEnv() && ((summary.duplicates ?? []).length > 0 || (summary.flaky_lines ?? []).length > 0))
    process.exitCode = 1;
  connection().close();
  return summary;
}
