import { expect, test } from 'vitest';
import agentModule from '../agent.js';

test('books a flight to LA', async () => {
  await expect(agentModule.agent('LA')).toMatchToolSnapshot();
});
