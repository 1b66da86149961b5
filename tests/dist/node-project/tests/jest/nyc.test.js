const { agent } = require('../agent.js');

test('books a flight to NYC', async () => {
  await expect(agent('NYC')).toMatchToolSnapshot();
});
