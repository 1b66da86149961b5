import { expect, test } from 'vitest';
import { weather } from './agent.js';

// Only with AGENT_EXTRA=1: a test whose snapshot was never recorded.
test.runIf(process.env.AGENT_EXTRA === '1')('a new test', async () => {
  await expect(await weather('Rome')).toMatchToolSnapshot();
});

test('a named check', async () => {
  await expect([{ tool: 'ping', args: {} }]).toMatchToolSnapshot({ name: 'shared name' });
});
