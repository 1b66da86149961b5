const { toolSnapshot } = require('toolscored');

// Only with RULES_TEST (tests/test_node.sh): a volatile argument ignored by
// the check's rules passes; RULES_TEST=invalid sends rules the daemon refuses.
const mode = process.env.RULES_TEST;
const booking = () => [{ tool: 'book', args: { to: 'NYC', request_id: `req-${process.hrtime.bigint()}` } }];

(mode === '1' ? test : test.skip)('ignores a volatile argument', async () => {
  await expect(booking()).toMatchToolSnapshot({ rules: { ignore: ['book.args.request_id'] } });
});

(mode === 'invalid' ? test : test.skip)('invalid rules', async () => {
  await toolSnapshot(booking(), { name: 'rules', rules: { order: 'sideways' } });
});
