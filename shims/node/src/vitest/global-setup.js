// Vitest globalSetup entry: opens (or joins) the run every worker reports
// to; its teardown closes it and prints the run's one summary line.

import { closeRun, openRun } from '../run.js';

export default async function setup(project) {
  const root = project?.config?.root ?? process.cwd();
  await openRun({ root, label: 'vitest' });
  return async () => {
    await closeRun();
  };
}
