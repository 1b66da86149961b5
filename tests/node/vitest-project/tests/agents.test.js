import { expect, test } from 'vitest';
import { toolSnapshot } from 'toolscored';
import { AIMessage, refundAgent } from './agent.js';

test('refunds an order', async () => {
  const result = await toolSnapshot(await refundAgent(), { minScore: 0.9 });
  if (result !== null) expect(result.score).toBeGreaterThanOrEqual(0.9);
});

test('langgraph state', async () => {
  const state = { messages: [new AIMessage([{ name: 'search', args: { q: 'weather in sf' }, id: 'call_1', type: 'tool_call' }])] };
  await expect(state).toMatchToolSnapshot({ name: 'langgraph weather' });
});
