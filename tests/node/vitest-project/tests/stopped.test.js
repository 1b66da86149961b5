import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';
import { weather } from './agent.js';

// Only with STOP_CMD (tests/test_node.sh): the daemon stops answering
// (SIGSTOP) between two checks of one worker; the second fails at its
// deadline (TOOLSCORE_TIMEOUT) instead of hanging the suite.
const cmd = process.env.STOP_CMD;

test.runIf(cmd)('before the daemon stops', async () => {
  await expect(await weather('Oslo')).toMatchToolSnapshot({ name: 'stopped-1' });
});

test.runIf(cmd)('the daemon stops answering', () => {
  execFileSync('/bin/sh', ['-c', cmd], { stdio: 'inherit' });
});

test.runIf(cmd)('after it stopped', async () => {
  await expect(await weather('Oslo')).toMatchToolSnapshot({ name: 'stopped-2' });
});

test.runIf(cmd)('a test without a check still runs', () => {
  expect(1).toBe(1);
});
