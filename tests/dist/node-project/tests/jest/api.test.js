const { toolSnapshot, VERSION } = require('toolscored');
const { agent } = require('../agent.js');

test('the API, from the CommonJS build', async () => {
  expect(VERSION).toBe(process.env.TOOLSCORED_EXPECTED_VERSION);
  await toolSnapshot(agent('SEA'), { name: 'jest api SEA' });
});
