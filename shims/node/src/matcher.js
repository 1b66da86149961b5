// toMatchToolSnapshot for Vitest's and Jest's expect.extend: an async
// matcher whose pass is the check passing (created, pending and updated
// snapshots pass with a warning), whose message is the drift report or the
// CI rule. Errors that are not a check's outcome (the daemon unreachable, a
// response of no known format) are thrown, so the test errors with them.

import { SnapshotError } from './errors.js';
import { callSite, check, checkParams, settle } from './snapshot.js';

export async function toMatchToolSnapshot(received, options = {}) {
  if (this?.isNot) throw new Error('toMatchToolSnapshot cannot be used with .not');
  const site = callSite(toMatchToolSnapshot);
  const { params, test } = checkParams(received, options, this);
  const reply = await check(params, site);
  try {
    await settle(reply, test, false);
  } catch (err) {
    if (err instanceof SnapshotError) return { pass: false, message: () => err.message };
    throw err;
  }
  return { pass: true, message: () => `snapshot '${reply.name}': ${reply.outcome}` };
}
