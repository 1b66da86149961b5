const { agent } = require('../agent.js');

test('books a flight to LA', async () => {
  await expect(agent('LA')).toMatchToolSnapshot();
});
