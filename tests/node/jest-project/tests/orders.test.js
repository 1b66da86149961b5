const { mastraAgent } = require('./agent');

describe('orders', () => {
  test('looks up an order', async () => {
    await expect(await mastraAgent('A-1')).toMatchToolSnapshot();
  });
});
