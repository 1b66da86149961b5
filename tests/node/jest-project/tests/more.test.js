const { vercelV4 } = require('./agent');

test('claims a shared name too', async () => {
  await expect([{ tool: 'ping', args: {} }]).toMatchToolSnapshot({ name: 'shared name' });
});

test('weather in Rome', async () => {
  await expect(await vercelV4('Rome')).toMatchToolSnapshot({ minScore: 0.5 });
});
