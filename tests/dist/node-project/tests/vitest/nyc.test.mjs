import { expect, test } from 'vitest';
import agentModule from '../agent.js';

test('books a flight to NYC', async () => {
  await expect(agentModule.agent('NYC')).toMatchToolSnapshot();
});
