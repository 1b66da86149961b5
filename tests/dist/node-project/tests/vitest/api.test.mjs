import { expect, test } from 'vitest';
import { toolSnapshot, VERSION } from 'toolscored';
import agentModule from '../agent.js';

test('the API, from the ES module build', async () => {
  expect(VERSION).toBe(process.env.TOOLSCORED_EXPECTED_VERSION);
  await toolSnapshot(agentModule.agent('SEA'), { name: 'vitest api SEA' });
});
