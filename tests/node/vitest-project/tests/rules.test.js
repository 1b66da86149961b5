import { expect, test } from 'vitest';
import { toolSnapshot } from 'toolscored';

// Only with RULES_TEST (tests/test_node.sh): a volatile argument ignored by
// the check's rules passes; RULES_TEST=invalid sends rules the daemon
// refuses, and rules that are not a plain object.
const mode = process.env.RULES_TEST;
const booking = () => [{ tool: 'book', args: { to: 'NYC', request_id: `req-${process.hrtime.bigint()}` } }];

test.runIf(mode === '1')('ignores a volatile argument', async () => {
  await expect(booking()).toMatchToolSnapshot({ rules: { ignore: ['book.args.request_id'] } });
});

test.runIf(mode === 'invalid')('invalid rules', async () => {
  await toolSnapshot(booking(), { name: 'tests/rules.test.js::ignores a volatile argument', rules: { ignroe: ['x'] } });
});

test.runIf(mode === 'invalid')('rules that are not an object', async () => {
  await toolSnapshot(booking(), { rules: ['book.args.request_id'] });
});
