// toolSnapshot(actual, options): one check of the snapshot state machine
// through the daemon. The name defaults to the test's id (its file relative
// to the project root, "::", the runner's full test name), with -2, -3 for
// later unnamed checks in one test; the caller's environment gives the ci
// and update flags (CI, TOOLSCORE_RECORD_UPDATE, the runner's -u). CREATED,
// PENDING and UPDATED warn and resolve to null; PASSED resolves to the
// scores; FAILED and the CI refusals reject with a SnapshotError whose
// message is the drift report or the CI rule.

import path from 'node:path';
import { connection } from './client.js';
import { ciFromEnv, envValue, truthy, updateFromEnv } from './env.js';
import { DaemonError, SnapshotError, ToolscoreError } from './errors.js';
import { resolveStore } from './paths.js';
import { currentTest, runnerName } from './runner.js';
import { packValue, toWire } from './values.js';

const counts = new Map();
const stores = new Map();
const files = new Map(); // "<root>\0<test file>" -> the file relative to the root
const lostRuns = new Set();

/** Forget every -2, -3 counter. */
export function resetNames() {
  counts.clear();
}

/** Restart the -2, -3 counter of one test (the setup files, before each test). */
export function forgetTest(test) {
  const id = testId(test);
  if (id !== undefined) counts.delete(id);
}

/** The project root: TOOLSCORE_PROJECT_ROOT (set by the global setups), else the cwd. */
export function projectRoot() {
  return envValue('TOOLSCORE_PROJECT_ROOT') ?? process.cwd();
}

/** The snapshot root in effect, resolved as the protocol requires. */
export function storePath(root = projectRoot()) {
  const dir = envValue('TOOLSCORE_DIR') ?? '.toolscore/snapshots';
  const key = `${root}\0${dir}`;
  let s = stores.get(key);
  if (s === undefined) {
    s = resolveStore(dir, root);
    stores.set(key, s);
  }
  return s;
}

/** The test's id: "<file relative to the root>::<full test name>". */
export function testId(test, root = projectRoot()) {
  if (test.testName === undefined && test.testPath === undefined) return undefined;
  const file = test.testPath ? relativeFile(root, test.testPath) : '';
  const name = test.testName ?? '';
  return file && name ? `${file}::${name}` : file || name;
}

/** testPath relative to root with / separators, remembered (a test file's
 * tests ask for it once each, before the test and at its checks). */
function relativeFile(root, testPath) {
  const key = `${root}\0${testPath}`;
  let file = files.get(key);
  if (file === undefined) {
    if (files.size >= 4096) files.clear();
    file = path.relative(root, testPath).split(path.sep).join('/');
    files.set(key, file);
  }
  return file;
}

function defaultName(id) {
  if (id === undefined)
    throw new ToolscoreError(
      'invalid_argument',
      'toolSnapshot: no test is running here, so there is no default name: pass {name}',
    );
  const n = (counts.get(id) ?? 0) + 1;
  counts.set(id, n);
  return n === 1 ? id : `${id}-${n}`;
}

function checkOptions(options) {
  if (options === null || typeof options !== 'object')
    throw new TypeError('toolscored: options must be an object');
  const known = ['name', 'minScore', 'weights', 'strict', 'rules', 'format'];
  for (const k of Object.keys(options)) {
    if (!known.includes(k)) throw new TypeError(`toolscored: unknown option ${k} (known: ${known.join(', ')})`);
  }
  if (options.name !== undefined && typeof options.name !== 'string')
    throw new TypeError('toolscored: option name must be a string');
  if (options.minScore !== undefined && (typeof options.minScore !== 'number' || !Number.isFinite(options.minScore)))
    throw new TypeError('toolscored: option minScore must be a finite number');
  if (options.strict !== undefined && typeof options.strict !== 'boolean')
    throw new TypeError('toolscored: option strict must be a boolean');
  if (options.format !== undefined && typeof options.format !== 'string')
    throw new TypeError('toolscored: option format must be a string');
  if (options.weights !== undefined && options.weights !== null && (typeof options.weights !== 'object' || Array.isArray(options.weights)))
    throw new TypeError('toolscored: option weights must be an object');
  if (options.rules !== undefined && options.rules !== null && !plainObject(options.rules))
    throw new TypeError(
      `toolscored: option rules must be a plain object of comparison rules (docs/rules.md), not ${describe(options.rules)}`,
    );
}

function plainObject(v) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function describe(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return `a ${v.constructor?.name ?? 'object'}`;
  return `a ${typeof v}`;
}

/** A positive number of columns of at most 65535 from text, else 0. */
function columns(text) {
  if (text === undefined || !/^[0-9]+$/.test(text)) return 0;
  const n = Number(text);
  return n > 0 && n <= 65535 ? n : 0;
}

/**
 * The drift report's width, measured as tsctl measures it:
 * TOOLSCORE_REPORT_WIDTH (what an outer `tsctl run` or the global setup
 * measured), else COLUMNS, else the terminal's on stdout, else 0 (the
 * daemon's default).
 */
export function terminalWidth(env = process.env, out = process.stdout) {
  let n = columns(envValue('TOOLSCORE_REPORT_WIDTH', env)) || columns(envValue('COLUMNS', env));
  if (n === 0 && out?.isTTY && Number.isInteger(out.columns)) n = out.columns;
  return n > 0 && n <= 65535 ? n : 0;
}

/**
 * The check's params and the name, for actual and options. state: a
 * matcher's context (its test), else the runner's current test.
 */
export function checkParams(actual, options = {}, state) {
  checkOptions(options);
  const test = currentTest(state);
  const root = projectRoot();
  const id = testId(test, root);
  const name = options.name ?? defaultName(id);
  const params = { store: storePath(root), name, actual: packValue(actual, 'actual') };
  if (options.format !== undefined && options.format !== 'auto') params.format = options.format;
  if (options.minScore !== undefined && options.minScore !== 1) params.min_score = options.minScore;
  if (options.weights !== undefined && options.weights !== null) params.weights = toWire(options.weights, 'weights');
  if (options.strict) params.strict = true;
  if (options.rules !== undefined && options.rules !== null) params.rules = toWire(options.rules, 'rules');
  const width = terminalWidth();
  if (width > 0) params.width = width;
  if (truthy(process.env.TOOLSCORE_NO_JSON_DIFF)) params.json_diff = false;
  if (ciFromEnv()) params.ci = true;
  if (updateFromEnv() || test.update) params.update = true;
  const run = envValue('TOOLSCORE_RUN');
  if (run !== undefined && !lostRuns.has(run)) params.run = run;
  if (id !== undefined) params.test = id;
  params.source = runnerName();
  // the commands a check prints (`tsctl accept 'NAME'`) as a project's user
  // runs this package's tsctl: node_modules/.bin is on no shell's PATH
  params.tsctl = 'npx tsctl';
  return { params, test };
}

/**
 * The outcome of a check reply: null, the scores (true instead when scores
 * is false: a matcher, which has no use for them), or a thrown
 * SnapshotError.
 */
export async function settle(reply, test, scores = true) {
  switch (reply.outcome) {
    case 'CREATED':
    case 'PENDING':
    case 'UPDATED':
      // an update that found the calls approved already changed nothing: no warning
      if (reply.outcome === 'UPDATED' && reply.written === false) return null;
      console.warn(`toolscore: ${reply.message}`);
      if (test?.annotate) await test.annotate(reply.message);
      return null;
    case 'PASSED':
      if (!scores) return true;
      return { outcome: reply.outcome, name: reply.name, file: reply.file, ...(reply.result ?? {}) };
    default:
      throw new SnapshotError(reply);
  }
}

/**
 * The check request. A daemon that restarted during the run no longer knows
 * it (not_found, the one not_found of check): the check is sent again
 * without the run, and later ones too, with one warning, so the tests still
 * run while the lost run's summary stays incomplete.
 */
export async function check(params, site) {
  try {
    return await connection().request('check', params);
  } catch (first) {
    let err = first;
    if (err instanceof DaemonError && err.code === 'not_found' && params.run !== undefined) {
      try {
        return await checkLost(params);
      } catch (again) {
        err = again;
      }
    }
    // an error answered later (a DaemonError, a ConnectionError) gets the
    // caller's stack, so the runner points at the test's line rather than
    // at the socket's data handler (duck-typed: under Jest the connection's
    // error classes may come from another module registry). Without a site
    // taken before the await, the stack here: its async frames lead back
    // through every await to the test's (nothing is spent on a check that
    // succeeds).
    if (site === undefined) {
      site = {};
      Error.captureStackTrace(site, check);
    }
    if (typeof site?.stack === 'string' && typeof err?.stack === 'string' && typeof err.code === 'string') {
      const frames = site.stack.split('\n').slice(1).join('\n');
      err.stack = `${err.name}: ${err.message}\n${frames}`;
    }
    throw err;
  }
}

/** The check sent again without its run, which the daemon no longer knows. */
async function checkLost(params) {
  lostRuns.add(params.run);
  console.warn(
    `toolscore: warning: the daemon no longer knows run ${params.run} (it restarted?); ` +
      'later checks of this worker are not counted in its summary',
  );
  const rest = { ...params };
  delete rest.run;
  return connection().request('check', rest);
}

/**
 * The stack of fn's caller, taken before any await (for check), for a
 * caller that is not awaited through async functions (a matcher: the runner
 * chains it with then). A few frames reach the test's; fewer frames, less
 * work on every check.
 */
export function callSite(fn) {
  const site = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 12;
  if (typeof Error.captureStackTrace === 'function') Error.captureStackTrace(site, fn);
  else site.stack = new Error().stack;
  Error.stackTraceLimit = limit;
  return site;
}

/**
 * Check actual (any agent response, or a list of {tool, args}) against its
 * snapshot. Resolves to null (created, pending, updated) or the scores of a
 * passing replay; rejects with a SnapshotError (FAILED, CI refusals), a
 * DaemonError (e.g. code "format") or a ConnectionError ("unavailable").
 */
export async function toolSnapshot(actual, options = {}) {
  const { params, test } = checkParams(actual, options);
  const reply = await check(params);
  return settle(reply, test);
}
