/// <reference types="toolscored/vitest/setup" />
// Compiled by tests/test_node.sh with tsc --noEmit: the package's
// declarations as a TypeScript user writes against them.
import { expect, test } from 'vitest';
import {
  ConnectionError,
  DaemonError,
  SnapshotError,
  toolSnapshot,
  type ToolSnapshotOptions,
  type ToolSnapshotResult,
} from 'toolscored';

const options: ToolSnapshotOptions = { name: 'n', minScore: 0.9, weights: { selection: 1 }, strict: false, format: 'vercel-ai' };

test('typed', async () => {
  const r: ToolSnapshotResult | null = await toolSnapshot({ steps: [] }, options);
  if (r !== null) {
    const score: number = r.score;
    expect(score).toBeGreaterThan(0);
  }
  await expect({ steps: [] }).toMatchToolSnapshot({ minScore: 0.5 });
  try {
    await toolSnapshot([]);
  } catch (err) {
    if (err instanceof SnapshotError) console.log(err.outcome, err.report, err.code);
    if (err instanceof DaemonError || err instanceof ConnectionError) console.log(err.code);
  }
});

// @ts-expect-error an unknown option is a type error
await toolSnapshot([], { nmae: 'x' });
// @ts-expect-error minScore is a number
await toolSnapshot([], { minScore: '1' });
