import { expect, test } from 'vitest';

// Only with FORMAT_TEST (tests/test_node.sh): a result whose shape
// detection does not take fails at this line, and the error says what to do.
test.runIf(process.env.FORMAT_TEST === '1')('an object with toolCalls of no known shape', async () => {
  await expect({ toolCalls: [{ name: 'book', arguments: '{}' }], note: 'hand-made' }).toMatchToolSnapshot();
});
