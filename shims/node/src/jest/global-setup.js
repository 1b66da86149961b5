// Jest globalSetup entry: opens (or joins) the run every worker reports to.

import { openRun } from '../run.js';

export default async function globalSetup(globalConfig, projectConfig) {
  const root = projectConfig?.rootDir ?? globalConfig?.rootDir ?? process.cwd();
  await openRun({ root, label: 'jest' });
}
