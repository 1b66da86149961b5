// The bin entries tsctl and toolscored: run the platform package's
// executable (docs/node.md), passing the arguments, the standard streams
// and the exit status through, and the signals that stop it.

import { spawn } from 'node:child_process';
import { findDaemon } from '../src/connection.js';
import { onPath, packagedExecutable } from '../src/platform.js';

function locate(name) {
  if (name === 'toolscored') return findDaemon();
  const packaged = packagedExecutable(name);
  if (packaged.path) return packaged;
  const found = onPath(name);
  if (found !== null) return { path: found };
  return { error: `${name} not found: ${packaged.error}, and PATH has no ${name} (reinstall toolscored)` };
}

export function run(name) {
  const found = locate(name);
  if (found.error) {
    process.stderr.write(`${name}: ${found.error}\n`);
    process.exit(127);
  }
  const child = spawn(found.path, process.argv.slice(2), { stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward);
  child.on('error', (err) => {
    process.stderr.write(`${name}: cannot run ${found.path}: ${err.message}\n`);
    process.exit(126);
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.removeListener(s, forward);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}
