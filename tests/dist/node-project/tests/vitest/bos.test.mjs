import { expect, test } from 'vitest';
import agentModule from '../agent.js';

test('books a flight to BOS', async () => {
  await expect(agentModule.agent('BOS')).toMatchToolSnapshot();
});
