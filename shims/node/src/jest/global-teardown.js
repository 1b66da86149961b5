// Jest globalTeardown entry: closes the run and prints its one summary line.

import { closeRun } from '../run.js';

export default async function globalTeardown() {
  await closeRun();
}
