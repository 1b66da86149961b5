// The benchmark's response: 10 calls, as an agent returns them.
export const N = Number(process.env.TS_BENCH_NODE_N ?? 1000);
export const calls = Array.from({ length: 10 }, (_, i) => ({
  tool: `tool_${i % 4}`,
  args: { query: `city ${i}`, limit: i, exact: i % 2 === 0, ratio: i + 0.5 },
}));
