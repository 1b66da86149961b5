// The benchmark's calls (tests/bench/calls10.json, or $TS_BENCH_CALLS): the
// same 10 calls the Python part checks. N: tests per suite.
const fs = require('node:fs');
const path = require('node:path');

const file = process.env.TS_BENCH_CALLS || path.join(__dirname, '..', '..', 'bench', 'calls10.json');
exports.calls = JSON.parse(fs.readFileSync(file, 'utf8'));
exports.N = Number(process.env.TS_BENCH_NODE_N || 2000);
