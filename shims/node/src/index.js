// toolscored for Node.js: snapshot tests of an agent's tool calls through the
// toolscored daemon (see docs/node.md).

export { toolSnapshot, resetNames, storePath, testId, projectRoot } from './snapshot.js';
export { toMatchToolSnapshot } from './matcher.js';
export { ToolscoreError, DaemonError, ConnectionError, SnapshotError } from './errors.js';
export { Connection, PROTOCOL, findDaemon } from './connection.js';
export { connection } from './client.js';
export { defaultSocketPath, resolveStore } from './paths.js';
export { toWire } from './values.js';
export { openRun, closeRun, summaryLines } from './run.js';
export { registerRunner } from './runner.js';
export { VERSION } from './version.js';
