const { agent } = require('../agent.js');

test('books a flight to BOS', async () => {
  await expect(agent('BOS')).toMatchToolSnapshot();
});
