// A stand-in agent returning Mastra and Vercel AI SDK v4 shapes.
// AGENT_DRIFT=1 makes it look up the wrong order; PIDS_FILE collects the
// worker processes that ran tests.
const fs = require('node:fs');

if (process.env.PIDS_FILE) fs.appendFileSync(process.env.PIDS_FILE, `${process.pid}\n`);

const mastraCall = (id, toolName, args) => ({ type: 'tool-call', runId: 'run_1', from: 'AGENT', payload: { toolCallId: id, toolName, args } });

async function mastraAgent(order) {
  const id = process.env.AGENT_DRIFT === '1' ? 'B-2' : order;
  const calls = [mastraCall('m1', 'lookupOrder', { id }), mastraCall('m2', 'notify', { channel: 'email' })];
  return { text: 'Done.', toolCalls: calls, steps: [{ toolCalls: [calls[0]] }, { toolCalls: [calls[1]] }], finishReason: 'stop' };
}

async function vercelV4(city) {
  const c = { type: 'tool-call', toolCallId: `v-${city}`, toolName: 'getWeather', args: { city } };
  return { text: '', toolCalls: [c], toolResults: [], finishReason: 'tool-calls', steps: [{ stepType: 'initial', toolCalls: [c], toolResults: [] }] };
}

module.exports = { mastraAgent, vercelV4 };
