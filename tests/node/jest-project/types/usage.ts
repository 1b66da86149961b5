/// <reference types="toolscored/jest/setup" />
// Compiled by tests/test_node.sh with tsc --noEmit: the matcher on the
// expect of @jest/globals, and the package's API from CommonJS.
import { expect, test } from '@jest/globals';
import { toolSnapshot, SnapshotError } from 'toolscored';

test('typed', async () => {
  await expect({ toolCalls: [] }).toMatchToolSnapshot({ name: 'x', minScore: 1 });
  const r = await toolSnapshot([]);
  if (r) console.log(r.score.toFixed(2));
  const e = new Error('x');
  if (e instanceof SnapshotError) console.log(e.outcome);
});

// @ts-expect-error the matcher takes options, not a string
expect([]).toMatchToolSnapshot('name');
