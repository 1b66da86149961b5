const { toolSnapshot } = require('toolscored');
const { vercelV4 } = require('./agent');

test('weather twice', async () => {
  await toolSnapshot(await vercelV4('Oslo'));
  await expect(await vercelV4('Lima')).toMatchToolSnapshot();
});

test('claims a shared name', async () => {
  await expect([{ tool: 'ping', args: {} }]).toMatchToolSnapshot({ name: 'shared name' });
});
