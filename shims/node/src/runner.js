// What the package knows of the test runner in this worker: the setup files
// of toolscored/vitest/setup and toolscored/jest/setup register it (its
// expect, the current test's context); without them, a global `expect`
// (Jest's, or Vitest's with globals on) is used when there is one.

const runner = { name: null, expect: null, context: null };

export function registerRunner(name, expect) {
  runner.name = name;
  runner.expect = expect;
}

/** What makes the checks, the snapshot's source: the runner, else "node". */
export function runnerName() {
  return runner.name ?? 'node';
}

export function setTestContext(context) {
  runner.context = context;
}

function expectState() {
  const e = runner.expect ?? globalThis.expect;
  try {
    return typeof e?.getState === 'function' ? e.getState() : null;
  } catch {
    return null;
  }
}

/**
 * The current test: {testPath, testName, update, annotate} (fields
 * undefined when unknown). state is a matcher's `this` when called from one.
 */
export function currentTest(state) {
  const s = state ?? expectState() ?? {};
  const snapshotState = s.snapshotState;
  const ctx = runner.context;
  return {
    testPath: s.testPath ?? undefined,
    testName: s.currentTestName ?? undefined,
    update: snapshotState?._updateSnapshot === 'all',
    annotate: typeof ctx?.annotate === 'function' ? (msg) => ctx.annotate(msg, 'warning') : null,
  };
}
