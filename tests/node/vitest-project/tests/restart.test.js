import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { weather } from './agent.js';

// Only with RESTART_CMD (tests/test_node.sh): the daemon is stopped and
// started again between two checks of one worker.
const cmd = process.env.RESTART_CMD;

test.runIf(cmd)('before the restart', async () => {
  await expect(await weather('Oslo')).toMatchToolSnapshot({ name: 'restart-1' });
});

test.runIf(cmd)('the daemon restarts', () => {
  execFileSync('/bin/sh', ['-c', cmd], { stdio: 'inherit' });
});

test.runIf(cmd)('after the restart', async () => {
  await expect(await weather('Oslo')).toMatchToolSnapshot({ name: 'restart-2' });
});
